#pragma once
// One block's state on the worker running it: its threads, warps, tiles and barrier, shared by
// the scheduler (scheduler.cpp: blocks on workers, threads on fibers) and the synchronisation
// (synchronisation.cpp: barriers, warp and tile exchanges). Internal to execution.
#include <boost/context/fiber.hpp>
#include <cstdint>
#include <exception>
#include <vector>

#include "emulator/language/cuda_language.hpp"

namespace gpulab::emulated::detail {

namespace ctx = boost::context;

// The lanes of a warp that meet at warp operations with one mask.
struct WarpGroup {
  unsigned mask = 0;
  unsigned arrived = 0;   // lanes at the current exchange
  bool syncwarp = false;  // the current exchange is a __syncwarp()
  std::uint64_t generation = 0;
  std::uint64_t slots[2][32] = {};  // by generation parity: a fast lane cannot overwrite a slow one's read
  unsigned lanes[2] = {0, 0};       // the lanes that took part, by the same parity

  void release(unsigned live, unsigned existing, std::uint64_t& syncs);
};

struct Warp {
  unsigned live = 0;               // lanes that exist and have not exited
  unsigned existing = 0;           // lanes that exist
  std::uint64_t* syncs = nullptr;  // __syncwarp()s completed (racecheck; in the block's warp_syncs)
  std::vector<WarpGroup> groups;
  WarpGroup& group(unsigned mask) {
    for (WarpGroup& g : groups) {
      if (g.mask == mask) return g;
    }
    groups.push_back(WarpGroup{mask});
    return groups.back();
  }
};

// A tile of several warps (cooperative groups' thread_block_tile<64 ... 1024>): its threads
// deposit a value each and wait until every live thread of the tile has (tile.sync(), cg::reduce).
struct Tile {
  unsigned first = 0, count = 0;  // its threads [first, first + count)
  unsigned arrived = 0;
  std::uint64_t generation = 0;
  std::vector<std::uint64_t> slots[2];  // by generation parity, as a warp group's
  std::vector<std::uint8_t> took_part[2];
};

// A thread's record, which it gets when it first waits (until then it runs to its end on its
// runner and needs none).
struct Thread {
  uint3 idx;
  unsigned slot = 0;  // its place in its block's `waiting`
  ctx::fiber fiber;   // the suspended thread, while it waits
  bool done = false;
};

// One block's shared state, on the worker running it.
struct Block {
  std::vector<Thread> threads;  // (kept from block to block on a worker: no allocation per block)
  std::vector<Warp> warps;
  std::vector<std::uint64_t> warp_syncs;  // each warp's __syncwarp() count (BlockContext::warp_syncs)
  std::vector<Tile> tiles;                // multi-warp tiles that have exchanged (few: a block's tiles)
  std::vector<Thread*> waiting;           // threads that have waited at least once, in the order they first did
  unsigned count = 0;                     // threads in the block
  unsigned next = 0;                      // the next thread to start
  uint3 next_idx = {0, 0, 0};             // its threadIdx
  dim3 dim;
  unsigned live = 0;
  unsigned arrived = 0;  // at the current __syncthreads
  std::uint64_t barrier_generation = 0;
  const char* barrier_file = nullptr;  // where the first thread at the current barrier waits
  int barrier_line = 0;
  bool abandoned = false;      // the thread just resumed was stopped: its fiber must not be touched
  bool diverged = false;       // synccheck saw threads wait at different barriers (what follows is its echo)
  int votes[2] = {0, 0};       // __syncthreads_count/and/or's sums, by generation parity
  std::uint64_t progress = 0;  // any arrival, release or exit: no progress in a round is a deadlock
  // Until a thread of the block synchronises, threads run one after another to their end and
  // nobody counts who has exited: a kernel without barriers pays nothing for them. The first
  // barrier or warp operation settles the count (settle()); from then on every exit is counted.
  bool counting = false;
  std::exception_ptr error;
};

// The block the worker runs (nullptr between blocks).
extern thread_local constinit Block* running_block;

// Threads [0, linear of the running thread) have run to their end: count them out.
inline void settle(Block& b) {
  if (b.counting) return;
  b.counting = true;
  const unsigned t = running_linear();
  b.live = b.count - t;
  for (unsigned w = 0; w < t / 32; ++w) b.warps[w].live = 0;
  if (t % 32 != 0) b.warps[t / 32].live &= ~((1u << (t % 32)) - 1);
}

// Back to the worker, which resumes the block's threads round after round (scheduler.cpp).
void yield();

}  // namespace gpulab::emulated::detail
