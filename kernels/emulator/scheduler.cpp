// The emulator's execution: blocks are spread over a pool of worker threads; inside a block every
// CUDA thread runs until it must wait for others (__syncthreads, a warp shuffle or vote) and then
// yields; the worker resumes the block's waiting threads round after round until all have
// finished. So a barrier really is a meeting point: a thread that reads shared memory before the
// barrier that would have ordered it sees what a GPU might show — another thread's element not
// written yet.
//
// Threads start one after another on a "runner" fiber. A thread that finishes without waiting
// needs no fiber of its own; one that waits keeps the runner it was on (its stack is there), and
// a fresh runner starts the next thread. So a kernel without barriers costs one fiber per block,
// not one per thread, and the order in which threads run is the same either way: thread 0 until
// it waits or ends, then thread 1, ...
//
// A thread the checked mode stops (a wild access) is abandoned where it stands: its fiber is
// never resumed nor unwound (unwinding could not pass the instrumentation's calls, which GCC
// takes to throw nothing), its stack is left to the process, and the block's other threads are
// unwound as for any error. A wild access the checks did not see faults on the unmapped pages
// around device and shared memory; the SIGSEGV handler below stops that thread the same way.
#include <pthread.h>
#include <signal.h>

#include <bit>
#include <boost/context/fiber.hpp>
#include <boost/context/pooled_fixedsize_stack.hpp>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "emulator/checker.hpp"
#include "emulator/emulator.hpp"
#include "emulator/memory_counter.hpp"
#include "emulator/runtime.hpp"
#include "emulator/shared_memory.hpp"
#include "emulator/shared_steps.hpp"

// The built-in variables (emulator.hpp): the running block's, and the running thread's index.
thread_local constinit uint3 threadIdx = {0, 0, 0};
thread_local constinit uint3 blockIdx = {0, 0, 0};
thread_local constinit dim3 blockDim{1, 1, 1};
thread_local constinit dim3 gridDim{1, 1, 1};

namespace gpulab::emulated {

namespace ctx = boost::context;

namespace detail {

thread_local constinit BlockContext* current_block = nullptr;

namespace {

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

}  // namespace

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

// A thread's record, which it gets when it first waits (until then it runs to its end on its
// runner and needs none).
struct Thread {
  uint3 idx;
  unsigned linear = 0;
  ctx::fiber fiber;  // the suspended thread, while it waits
  bool done = false;
};
thread_local constinit unsigned running_linear = 0;
thread_local constinit Thread* running_thread = nullptr;

namespace {

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
  bool abandoned = false;        // the thread just resumed was stopped: its fiber must not be touched
  bool diverged = false;         // synccheck saw threads wait at different barriers (what follows is its echo)
  int votes[2] = {0, 0};         // __syncthreads_count/and/or's sums, by generation parity
  std::uint64_t progress = 0;    // any arrival, release or exit: no progress in a round is a deadlock
  Thread* first_wait = nullptr;  // a runner's thread that just waited for the first time
  // Until a thread of the block synchronises, threads run one after another to their end and
  // nobody counts who has exited: a kernel without barriers pays nothing for them. The first
  // barrier or warp operation settles the count (settle()); from then on every exit is counted.
  bool counting = false;
  std::exception_ptr error;
};

// Threads [0, linear of the running thread) have run to their end: count them out.
void settle(Block& b) {
  if (b.counting) return;
  b.counting = true;
  const unsigned t = running_linear;
  b.live = b.count - t;
  for (unsigned w = 0; w < t / 32; ++w) b.warps[w].live = 0;
  if (t % 32 != 0) b.warps[t / 32].live &= ~((1u << (t % 32)) - 1);
}

thread_local Block* running_block = nullptr;
thread_local ctx::fiber* current_sink = nullptr;      // where the running fiber yields to
thread_local constinit bool on_thread_fiber = false;  // a kernel thread is running (not the worker)

// What the SIGSEGV handler saw, for the worker to report once it is back on its own stack.
struct SignalFault {
  bool set = false;
  std::uintptr_t address = 0;
  const void* pc = nullptr;
};
thread_local constinit SignalFault signal_fault;

// Back to the worker for good: the thread's fiber is left as it is.
[[noreturn]] void abandon() {
  running_block->abandoned = true;
  ctx::fiber* sink = current_sink;
  (void)std::move(*sink).resume();
  std::abort();  // never resumed
}

// Back to the worker, which sets running_thread and ::threadIdx before it resumes a fiber.
void yield() {
  if (running_thread == nullptr) {  // its first wait: it gets a record, and a runner takes over
    Block& b = *running_block;
    Thread& self = b.threads[running_linear];
    self.linear = running_linear;
    self.idx = ::threadIdx;
    self.done = false;
    running_thread = b.first_wait = &self;
    b.waiting.push_back(&self);
    uint3 next = self.idx;  // the runner that takes over starts at the next thread
    if (++next.x == b.dim.x) {
      next.x = 0;
      if (++next.y == b.dim.y) next.y = 0, ++next.z;
    }
    b.next = running_linear + 1;
    b.next_idx = next;
  }
  ctx::fiber* sink = current_sink;
  *sink = std::move(*sink).resume();
  current_sink = sink;
}

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
    shared_steps::barrier_fell(b.barrier_file, b.barrier_line);
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
    shared_steps::barrier_fell(b.barrier_file, b.barrier_line);
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
  const unsigned lane = running_linear % 32;
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
  Warp& w = b.warps[running_linear / 32];
  WarpGroup& g = w.group(mask);
  g.syncwarp = g.syncwarp || syncwarp;
  const std::uint64_t generation = g.generation;
  std::uint64_t* slots = g.slots[generation & 1];
  slots[lane] = value;
  g.arrived |= 1u << lane;
  ++b.progress;
  if (all_arrived(g, w.live)) {
    g.release(w.live, w.existing, *w.syncs);
    if (!syncwarp && shared_steps::recording())
      shared_steps::exchanged(running_linear / 32, slots, g.lanes[generation & 1]);
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
  const unsigned first = running_linear / count * count;
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
  t.slots[generation & 1][running_linear - first] = value;
  t.took_part[generation & 1][running_linear - first] = 1;
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

unsigned int lane_id() { return running_linear % 32; }
unsigned int live_lanes() {
  settle(*running_block);
  return running_block->warps[running_linear / 32].live;
}

void not_emulated(const char* what) {
  throw std::runtime_error(std::string(what) + " is not emulated: GPU Lab's emulator runs it only on a GPU");
}

void thread_threw() {
  try {
    throw;
  } catch (const ctx::detail::forced_unwind&) {
    throw;  // the fiber is being destroyed: let boost unwind it
  } catch (...) {
    if (!running_block->error) running_block->error = std::current_exception();
  }
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

}  // namespace detail

void stop_running_thread(std::exception_ptr why) {
  detail::Block& b = *detail::running_block;
  if (!b.error) b.error = std::move(why);
  detail::abandon();
}

namespace {

using detail::Block;
using detail::Thread;

// The SIGSEGV/SIGBUS backstop: a kernel thread's access to an unmapped page stops that thread.
struct sigaction previous_actions[2];

void on_fault(int signal, siginfo_t* info, void* context) {
  if (!detail::on_thread_fiber) {  // not a kernel's: what would have happened without us
    sigaction(signal, &previous_actions[signal == SIGBUS], nullptr);
    return;
  }
  detail::signal_fault = {true, reinterpret_cast<std::uintptr_t>(info->si_addr),
                          reinterpret_cast<const void*>(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP])};
  detail::abandon();
}

// Made sure of at every launch, not once: whatever ran since the last may have put its own handler
// back (Catch2 sets and restores one around each test case, which left a test case's wild pointer
// a real SIGSEGV where an earlier one had installed ours). Ours hands faults that are not a
// kernel's to the handler it found. (Called with the worker pool's lock held: one at a time.)
void install_fault_handler() {
  struct sigaction current {};
  sigaction(SIGSEGV, nullptr, &current);
  if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == on_fault) return;
  struct sigaction action {};
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &previous_actions[0]);
  sigaction(SIGBUS, &action, &previous_actions[1]);
}

// Each worker handles signals on a stack of its own (a kernel's own stack may be what overflowed).
void give_signal_stack() {
  constexpr std::size_t kBytes = 64 * 1024;
  stack_t stack{};
  stack.ss_sp = std::malloc(kBytes);  // for the worker's life
  stack.ss_size = kBytes;
  if (stack.ss_sp != nullptr) sigaltstack(&stack, nullptr);
}

// After a resume: if the thread was stopped, its fiber is kept from being destroyed (which would
// unwind it) and the fault the signal handler saw becomes the block's error.
bool stopped(Block& block, ctx::fiber&& fiber) {
  if (!block.abandoned) return false;
  block.abandoned = false;
  thread_local auto* graveyard = new std::vector<ctx::fiber>;  // never destroyed, never resumed
  graveyard->push_back(std::move(fiber));
  if (detail::signal_fault.set) {
    detail::signal_fault.set = false;
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGSEGV);
    sigaddset(&signals, SIGBUS);
    pthread_sigmask(SIG_UNBLOCK, &signals, nullptr);  // the handler never returned
    const std::string text =
        check::unmapped_access_report(detail::signal_fault.address, detail::signal_fault.pc, check::running_thread());
    if (!block.error) block.error = std::make_exception_ptr(KernelFault(cudaErrorIllegalAddress, text));
  }
  return true;
}

// Fiber stacks come from a pool per worker, so starting a block's threads allocates nothing new
// after the first blocks. 256 KiB each: far more than a kernel's locals need.
ctx::pooled_fixedsize_stack& stack_pool() {
  thread_local ctx::pooled_fixedsize_stack pool(256 * 1024);
  return pool;
}

// Starts threads one after another until one waits (then this runner is that thread's fiber,
// and the worker starts a new runner for the rest) or all have started.
ctx::fiber start_runner(Block& block, detail::ThreadLoop loop, const void* body) {
  return ctx::fiber(std::allocator_arg, stack_pool(), [&block, loop, body](ctx::fiber&& sink) {
    ctx::fiber my_sink = std::move(sink);
    detail::current_sink = &my_sink;
    const detail::Starts from{block.next, block.next_idx, block.dim, block.count, &block.counting};
    const unsigned next = loop(body, from);
    block.next = std::max(block.next, next);
    return my_sink;
  });
}

void run_block(detail::ThreadLoop loop, const void* body, detail::BlockContext& context) {
  struct EndBlock {  // the block's last writes are done: racecheck's pending write-after-writes are decided
    ~EndBlock() { check::end_block(); }
  } end_block;
  const dim3 dim = context.block_dim;
  const unsigned count = dim.x * dim.y * dim.z;
  // A worker runs one block at a time: its storage is reused (on the heap, as the counter's log).
  thread_local Block& block = *new Block;
  if (block.threads.size() < count) block.threads.resize(count);
  block.warps.resize((count + 31) / 32);
  block.warp_syncs.assign(block.warps.size(), 0);
  context.warp_syncs = block.warp_syncs.data();
  for (unsigned w = 0; w < block.warps.size(); ++w) {
    const unsigned lanes = std::min(32u, count - 32 * w);
    block.warps[w].live = block.warps[w].existing = lanes >= 32 ? 0xFFFFFFFFu : (1u << lanes) - 1;
    block.warps[w].syncs = &block.warp_syncs[w];
    block.warps[w].groups.clear();
  }
  block.tiles.clear();
  block.waiting.clear();
  block.count = block.live = count;
  block.dim = dim;
  block.next = 0;
  block.next_idx = {0, 0, 0};
  block.arrived = 0;
  block.barrier_generation = 0;
  block.barrier_file = nullptr;
  block.barrier_line = 0;
  block.abandoned = false;
  block.diverged = false;
  block.votes[0] = block.votes[1] = 0;
  block.progress = 0;
  block.counting = false;
  block.error = nullptr;
  detail::running_block = &block;
  detail::current_block = &context;
  ::blockIdx = context.block_idx;
  ::blockDim = context.block_dim;
  ::gridDim = context.grid_dim;

  for (;;) {
    const std::uint64_t before = block.progress;
    while (block.next < count && !block.error) {
      // (The runner's fiber comes from the pool; when no thread waits on it, it ends with the block.)
      block.first_wait = nullptr;
      detail::on_thread_fiber = true;
      ctx::fiber runner = std::move(start_runner(block, loop, body)).resume();
      detail::on_thread_fiber = false;
      if (stopped(block, std::move(runner))) {
        if (block.first_wait != nullptr) block.first_wait->done = true;
        break;
      }
      if (runner) block.first_wait->fiber = std::move(runner);  // that thread waits on this runner's stack
    }
    unsigned waiting = 0;
    for (Thread* thread : block.waiting) {
      if (block.error) break;
      if (thread->done || !thread->fiber) continue;
      detail::running_thread = thread;
      detail::running_linear = thread->linear;
      ::threadIdx = thread->idx;
      detail::on_thread_fiber = true;
      ctx::fiber next = std::move(thread->fiber).resume();
      detail::on_thread_fiber = false;
      if (stopped(block, std::move(next))) {
        thread->done = true;
        break;
      }
      thread->fiber = std::move(next);
      if (!thread->done) ++waiting;
    }
    if (block.error) {
      // Destroying the waiting fibers unwinds them; the storage stays for the worker's next block.
      for (Thread* thread : block.waiting) thread->fiber = {};
      std::rethrow_exception(std::exchange(block.error, nullptr));
    }
    if (waiting == 0 && block.next >= count) break;
    if (block.progress == before) {
      for (Thread* thread : block.waiting) thread->fiber = {};  // unwound: the storage is reused
      throw std::runtime_error(
          "deadlock: " + std::to_string(waiting) +
          " threads wait at a __syncthreads() or warp operation that the other threads of their block or warp "
          "never reach (is a barrier inside a branch only some threads take, or does a *_sync mask name lanes "
          "that do not call it?)");
    }
  }
}

// A fixed pool of worker threads that run a launch's blocks; one launch at a time.
class WorkerPool {
 public:
  WorkerPool() {
    unsigned n = std::thread::hardware_concurrency();
    if (const char* env = std::getenv("GPULAB_EMU_THREADS")) n = static_cast<unsigned>(std::atoi(env));
    n = std::max(1u, n);
    for (unsigned i = 0; i < n; ++i) {
      threads_.emplace_back([this] {
        give_signal_stack();
        work();
      });
    }
  }
  ~WorkerPool() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    start_.notify_all();
    for (std::thread& t : threads_) t.join();
  }
  unsigned size() const { return static_cast<unsigned>(threads_.size()); }

  void run(std::size_t jobs, const std::function<void(std::size_t)>& job) {
    std::unique_lock lock(mutex_);
    install_fault_handler();
    job_ = &job;
    jobs_ = jobs;
    next_ = 0;
    busy_ = size();
    error_ = nullptr;
    ++round_;
    start_.notify_all();
    done_.wait(lock, [this] { return busy_ == 0; });
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void work() {
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        start_.wait(lock, [&] { return stop_ || round_ != seen; });
        if (stop_) return;
        seen = round_;
      }
      for (std::size_t i; (i = next_++) < jobs_;) {
        try {
          (*job_)(i);
        } catch (...) {
          std::lock_guard lock(mutex_);
          if (!error_) error_ = std::current_exception();
          next_ = jobs_;  // stop handing out blocks
        }
      }
      std::lock_guard lock(mutex_);
      if (--busy_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(std::size_t)>* job_ = nullptr;
  std::size_t jobs_ = 0;
  std::atomic<std::size_t> next_{0};
  unsigned busy_ = 0;
  std::uint64_t round_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

WorkerPool& pool() {
  static WorkerPool workers;
  return workers;
}

}  // namespace

unsigned worker_count() { return pool().size(); }

bool in_kernel() { return detail::current_block != nullptr && detail::running_block != nullptr; }

void run_blocks(dim3 grid, dim3 block_dim, std::size_t shared_bytes, detail::ThreadLoop loop, const void* body) {
  const std::size_t blocks = std::size_t{grid.x} * grid.y * grid.z;
  const std::uint32_t launch = check::launch_number();
  pool().run(blocks, [&](std::size_t b) {
    // Shared memory is poisoned for every block: reading it before writing it shows.
    shared::begin_block(shared_bytes);
    detail::BlockContext context;
    context.linear = b;
    context.launch = launch;
    context.reader_tag = check::reader_tag(launch, b);
    context.block_idx = {static_cast<unsigned>(b % grid.x), static_cast<unsigned>(b / grid.x % grid.y),
                         static_cast<unsigned>(b / (std::size_t{grid.x} * grid.y))};
    context.block_dim = block_dim;
    context.grid_dim = grid;
    struct Reset {  // a worker between blocks is in no kernel; the block's accesses are counted
      ~Reset() {
        try {
          shared_steps::end_block();
          memory_counter::end_block();
        } catch (...) {  // (out of memory: this block goes uncounted)
        }
        detail::current_block = nullptr, detail::running_block = nullptr;
      }
    } reset;
    run_block(loop, body, context);
  });
}

}  // namespace gpulab::emulated
