// Barriers, warp exchanges and tile exchanges of a block's threads (a thread waits by yielding to
// its worker until the others arrive: scheduler.cpp), with synccheck's checks of them: a barrier
// not every thread reaches, a warp operation's mask naming lanes that exited.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "emulator/execution/block_state.hpp"
#include "emulator/observers/checker.hpp"
#include "emulator/observers/observer.hpp"

namespace gpulab::emulated::detail {

// synccheck: a warp operation whose mask names lanes that exited instead of taking part.
void WarpGroup::release(unsigned live, unsigned existing, std::uint64_t& syncs) {
  if (const unsigned missing = mask & existing & ~live; missing != 0 && check::tracking()) {
    char text[160];
    std::snprintf(text, sizeof text, "mask 0x%08x names lanes 0x%08x that exited without calling it", mask, missing);
    check::report(check::Tool::synccheck, std::string("warp ") + text,
                  std::string("========= Barrier error detected. Invalid arguments\n=========     a warp operation "
                              "(__shfl_*_sync, __ballot_sync, __syncwarp, ...) whose ") +
                      text + "\n=========     by " + check::running_thread() +
                      "\n=========     Every lane a *_sync mask names must call that operation: take the exited "
                      "lanes out of the mask (__ballot_sync(0xffffffff, i < n) before they leave), or keep "
                      "them in the loop.\n");
  }
  lanes[generation & 1] = mask & live;
  arrived = 0;
  ++generation;
  if (syncwarp) ++syncs, syncwarp = false;
}

namespace {

bool all_arrived(const WarpGroup& g, unsigned live) { return g.arrived != 0 && (g.arrived & live) == (g.mask & live); }

void check_barrier_complete(const Block& b);

unsigned live_in(const Block& b, const Tile& t) {
  unsigned live = 0;
  for (unsigned w = t.first / 32; w < (t.first + t.count) / 32; ++w) live += std::popcount(b.warps[w].live);
  return live;
}

void release_waiters(Block& b, Warp& w) {
  for (Tile& t : b.tiles) {
    if (t.arrived > 0 && t.arrived == live_in(b, t)) {
      t.arrived = 0, ++t.generation;
      std::fill(t.took_part[t.generation & 1].begin(), t.took_part[t.generation & 1].end(), 0);
    }
  }
  if (b.arrived > 0 && b.arrived == b.live) {  // the last thread the barrier waited for exited
    check_barrier_complete(b);
    observe::barrier(b.barrier_file, b.barrier_line);
    b.arrived = 0;
    current_block->barrier_generation = ++b.barrier_generation;
  }
  for (WarpGroup& g : w.groups) {
    if (all_arrived(g, w.live)) g.release(w.live, w.existing, *w.syncs);
  }
}

std::string site(const char* file, int line) {
  return file == nullptr ? std::string("a __syncthreads_count/and/or") : std::string(file) + ":" + std::to_string(line);
}

// synccheck: the threads of a block must all wait at the same barrier.
void check_barrier_site(Block& b, const char* file, int line) {
  if (!check::tracking()) return;
  if (b.arrived == 0) {
    b.barrier_file = file, b.barrier_line = line;
    return;
  }
  if (b.barrier_line == line &&
      (file == b.barrier_file || (file && b.barrier_file && !std::strcmp(file, b.barrier_file))))
    return;
  b.diverged = true;
  check::report(
      check::Tool::synccheck, "divergent " + site(b.barrier_file, b.barrier_line) + " " + site(file, line),
      "========= Barrier error detected. Divergent thread(s) in block\n=========     " + check::running_thread() +
          " waits at the __syncthreads() at " + site(file, line) +
          "\n=========     while others of its block wait at the one at " + site(b.barrier_file, b.barrier_line) +
          "\n=========     Every thread of a block must reach the same __syncthreads(): take it out of "
          "the branch.\n");
}

// synccheck: when a barrier opens, every thread of the block should be there.
void check_barrier_complete(const Block& b) {
  if (!check::tracking() || b.live == b.count || b.diverged) return;
  const std::string where = site(b.barrier_file, b.barrier_line);
  check::report(check::Tool::synccheck, "exited " + where,
                "========= Barrier error detected. Divergent thread(s) in block\n=========     " +
                    std::to_string(b.count - b.live) + " of the " + std::to_string(b.count) +
                    " threads of the block exited without reaching the __syncthreads() at " + where +
                    ", which the others wait at\n=========     (last to arrive: " + check::running_thread() +
                    ")\n=========     Every thread of a block must reach each __syncthreads(): instead of an early "
                    "return, put the work in an if and keep the barrier outside it.\n");
}

// Waits at the block's barrier; returns the generation it opened.
std::uint64_t arrive_at_barrier(Block& b, const char* file, int line) {
  settle(b);
  check_barrier_site(b, file, line);
  const std::uint64_t generation = b.barrier_generation;
  ++b.progress;
  if (++b.arrived == b.live) {  // the last to arrive opens the barrier and goes on
    check_barrier_complete(b);
    observe::barrier(b.barrier_file, b.barrier_line);
    b.arrived = 0;
    b.votes[(generation + 1) & 1] = 0;  // every reader of that parity has read it (they reached this barrier)
    current_block->barrier_generation = ++b.barrier_generation;
    return generation;
  }
  while (b.barrier_generation == generation) yield();
  return generation;
}

}  // namespace

void syncthreads(const char* file, int line) { arrive_at_barrier(*running_block, file, line); }

int syncthreads_vote(int predicate, BlockVote vote) {
  Block& b = *running_block;
  const std::uint64_t generation = b.barrier_generation;
  int& sum = b.votes[generation & 1];
  if (vote == BlockVote::count) sum += predicate != 0;
  if (vote == BlockVote::all) sum += predicate == 0;  // counts the threads that say no
  if (vote == BlockVote::any) sum += predicate != 0;
  arrive_at_barrier(b, nullptr, 0);
  const int total = b.votes[generation & 1];
  if (vote == BlockVote::all) return total == 0;
  if (vote == BlockVote::any) return total != 0;
  return total;
}

namespace {
Exchange exchange(unsigned mask, std::uint64_t value, bool syncwarp) {
  Block& b = *running_block;
  const unsigned lane = running_linear() % 32;
  if ((mask >> lane & 1u) == 0) {
    throw std::runtime_error("a warp operation's mask (0x" +
                             [&] {
                               char hex[16];
                               std::snprintf(hex, sizeof hex, "%08x", mask);
                               return std::string(hex);
                             }() +
                             ") does not include the calling lane " + std::to_string(lane) +
                             ": every thread that calls a *_sync operation must be named in its mask");
  }
  settle(b);
  Warp& w = b.warps[running_linear() / 32];
  WarpGroup& g = w.group(mask);
  g.syncwarp = g.syncwarp || syncwarp;
  const std::uint64_t generation = g.generation;
  std::uint64_t* slots = g.slots[generation & 1];
  slots[lane] = value;
  g.arrived |= 1u << lane;
  ++b.progress;
  if (all_arrived(g, w.live)) {
    g.release(w.live, w.existing, *w.syncs);
    if (!syncwarp) observe::warp_exchange(running_linear() / 32, slots, g.lanes[generation & 1]);
  } else {
    // The group may move in memory as others are added: look it up again after each wait.
    while (w.group(mask).generation == generation) yield();
  }
  const WarpGroup& done = w.group(mask);
  return {done.slots[generation & 1], done.lanes[generation & 1]};
}
}  // namespace

Exchange warp_exchange(unsigned mask, std::uint64_t value) { return exchange(mask, value, false); }
void syncwarp(unsigned mask, const char*, int) { exchange(mask, 0, true); }

TileExchange tile_exchange(unsigned count, std::uint64_t value) {
  Block& b = *running_block;
  settle(b);
  const unsigned first = running_linear() / count * count;
  auto find = [&]() -> Tile& {
    for (Tile& t : b.tiles) {
      if (t.first == first && t.count == count) return t;
    }
    Tile& t = b.tiles.emplace_back();
    t.first = first, t.count = count;
    for (int parity = 0; parity < 2; ++parity) t.slots[parity].resize(count), t.took_part[parity].resize(count);
    return t;
  };
  Tile& t = find();
  const std::uint64_t generation = t.generation;
  t.slots[generation & 1][running_linear() - first] = value;
  t.took_part[generation & 1][running_linear() - first] = 1;
  ++b.progress;
  if (++t.arrived == live_in(b, t)) {
    t.arrived = 0, ++t.generation;
    std::fill(t.took_part[t.generation & 1].begin(), t.took_part[t.generation & 1].end(), 0);
  } else {
    while (find().generation == generation) yield();  // (the list may grow while this thread waits)
  }
  const Tile& done = find();
  return {done.slots[generation & 1].data(), done.took_part[generation & 1].data()};
}

unsigned int lane_id() { return running_linear() % 32; }
unsigned int live_lanes() {
  settle(*running_block);
  return running_block->warps[running_linear() / 32].live;
}

bool thread_ended(unsigned linear) {
  // An exited thread no longer holds back its block's barriers or its warp's exchanges.
  Block& block = *running_block;
  Thread* record = running_thread;
  if (record != nullptr) record->done = true;
  if (block.counting) {  // until a thread synchronises, settle() counts the ended ones at once
    --block.live;
    Warp& warp = block.warps[linear / 32];
    warp.live &= ~(1u << (linear % 32));
    ++block.progress;
    release_waiters(block, warp);
  }
  return record != nullptr;
}

}  // namespace gpulab::emulated::detail
