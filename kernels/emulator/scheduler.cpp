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

#include "emulator/emulator.hpp"
#include "emulator/runtime.hpp"

// The launch's dynamic shared memory (`extern __shared__`): one buffer per worker, which runs one
// block at a time. Kernels reach it through dynamic_shared<T>() (see emulator/rewrite.hpp).
extern "C" {
alignas(128) thread_local unsigned char gpulab_emulated_dynamic_shared[gpulab::emulated::kMaxDynamicShared];
}

namespace gpulab::emulated {

namespace ctx = boost::context;

namespace detail {

thread_local constinit BlockContext* current_block = nullptr;
thread_local constinit uint3 current_thread_idx = {0, 0, 0};

namespace {

// The lanes of a warp that meet at warp operations with one mask.
struct WarpGroup {
  unsigned mask = 0;
  unsigned arrived = 0;  // lanes at the current exchange
  std::uint64_t generation = 0;
  std::uint64_t slots[2][32] = {};  // by generation parity: a fast lane cannot overwrite a slow one's read
  unsigned lanes[2] = {0, 0};       // the lanes that took part, by the same parity

  void release(unsigned live) {
    lanes[generation & 1] = mask & live;
    arrived = 0;
    ++generation;
  }
};

struct Warp {
  unsigned live = 0;  // lanes that exist and have not exited
  std::vector<WarpGroup> groups;
  WarpGroup& group(unsigned mask) {
    for (WarpGroup& g : groups) {
      if (g.mask == mask) return g;
    }
    groups.push_back(WarpGroup{mask});
    return groups.back();
  }
};

}  // namespace

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
  std::vector<Thread*> waiting;  // threads that have waited at least once, in the order they first did
  unsigned count = 0;            // threads in the block
  unsigned next = 0;             // the next thread to start
  uint3 next_idx = {0, 0, 0};    // its threadIdx
  dim3 dim;
  unsigned live = 0;
  unsigned arrived = 0;  // at the current __syncthreads
  std::uint64_t barrier_generation = 0;
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
thread_local ctx::fiber* current_sink = nullptr;  // where the running fiber yields to

// Back to the worker, which sets running_thread and current_thread_idx before it resumes a fiber.
void yield() {
  if (running_thread == nullptr) {  // its first wait: it gets a record, and a runner takes over
    Block& b = *running_block;
    Thread& self = b.threads[running_linear];
    self.linear = running_linear;
    self.idx = current_thread_idx;
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

void release_waiters(Block& b, Warp& w) {
  if (b.arrived > 0 && b.arrived == b.live) {
    b.arrived = 0;
    ++b.barrier_generation;
  }
  for (WarpGroup& g : w.groups) {
    if (all_arrived(g, w.live)) g.release(w.live);
  }
}

// Waits at the block's barrier; returns the generation it opened.
std::uint64_t arrive_at_barrier(Block& b) {
  settle(b);
  const std::uint64_t generation = b.barrier_generation;
  ++b.progress;
  if (++b.arrived == b.live) {  // the last to arrive opens the barrier and goes on
    b.arrived = 0;
    b.votes[(generation + 1) & 1] = 0;  // every reader of that parity has read it (they reached this barrier)
    ++b.barrier_generation;
    return generation;
  }
  while (b.barrier_generation == generation) yield();
  return generation;
}

}  // namespace

void syncthreads() { arrive_at_barrier(*running_block); }

int syncthreads_vote(int predicate, BlockVote vote) {
  Block& b = *running_block;
  const std::uint64_t generation = b.barrier_generation;
  int& sum = b.votes[generation & 1];
  if (vote == BlockVote::count) sum += predicate != 0;
  if (vote == BlockVote::all) sum += predicate == 0;  // counts the threads that say no
  if (vote == BlockVote::any) sum += predicate != 0;
  arrive_at_barrier(b);
  const int total = b.votes[generation & 1];
  if (vote == BlockVote::all) return total == 0;
  if (vote == BlockVote::any) return total != 0;
  return total;
}

Exchange warp_exchange(unsigned mask, std::uint64_t value) {
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
  const std::uint64_t generation = g.generation;
  std::uint64_t* slots = g.slots[generation & 1];
  slots[lane] = value;
  g.arrived |= 1u << lane;
  ++b.progress;
  if (all_arrived(g, w.live)) {
    g.release(w.live);
  } else {
    // The group may move in memory as others are added: look it up again after each wait.
    while (w.group(mask).generation == generation) yield();
  }
  const WarpGroup& done = w.group(mask);
  return {done.slots[generation & 1], done.lanes[generation & 1]};
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

namespace {

using detail::Block;
using detail::Thread;

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
  const dim3 dim = context.block_dim;
  const unsigned count = dim.x * dim.y * dim.z;
  thread_local Block block;  // a worker runs one block at a time: its storage is reused
  if (block.threads.size() < count) block.threads.resize(count);
  block.warps.resize((count + 31) / 32);
  for (unsigned w = 0; w < block.warps.size(); ++w) {
    const unsigned lanes = std::min(32u, count - 32 * w);
    block.warps[w].live = lanes >= 32 ? 0xFFFFFFFFu : (1u << lanes) - 1;
    block.warps[w].groups.clear();
  }
  block.waiting.clear();
  block.count = block.live = count;
  block.dim = dim;
  block.next = 0;
  block.next_idx = {0, 0, 0};
  block.arrived = 0;
  block.barrier_generation = 0;
  block.votes[0] = block.votes[1] = 0;
  block.progress = 0;
  block.counting = false;
  block.error = nullptr;
  detail::running_block = &block;
  detail::current_block = &context;

  for (;;) {
    const std::uint64_t before = block.progress;
    while (block.next < count && !block.error) {
      // (The runner's fiber comes from the pool; when no thread waits on it, it ends with the block.)
      block.first_wait = nullptr;
      ctx::fiber runner = std::move(start_runner(block, loop, body)).resume();
      if (runner) block.first_wait->fiber = std::move(runner);  // that thread waits on this runner's stack
    }
    unsigned waiting = 0;
    for (Thread* thread : block.waiting) {
      if (thread->done || !thread->fiber) continue;
      detail::running_thread = thread;
      detail::running_linear = thread->linear;
      detail::current_thread_idx = thread->idx;
      thread->fiber = std::move(thread->fiber).resume();
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
    for (unsigned i = 0; i < n; ++i) threads_.emplace_back([this] { work(); });
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
  pool().run(blocks, [&](std::size_t b) {
    // Dynamic shared memory is poisoned for every block: reading it before writing it shows.
    std::memset(gpulab_emulated_dynamic_shared, 0xFF, shared_bytes);
    detail::BlockContext context;
    context.block_idx = {static_cast<unsigned>(b % grid.x), static_cast<unsigned>(b / grid.x % grid.y),
                         static_cast<unsigned>(b / (std::size_t{grid.x} * grid.y))};
    context.block_dim = block_dim;
    context.grid_dim = grid;
    struct Reset {  // a worker between blocks is in no kernel
      ~Reset() { detail::current_block = nullptr, detail::running_block = nullptr; }
    } reset;
    run_block(loop, body, context);
  });
}

}  // namespace gpulab::emulated
