// The emulator's execution: blocks are spread over a pool of worker threads; inside a block
// every CUDA thread is a fiber. A fiber runs until it must wait for others (__syncthreads, a warp
// shuffle or vote) and then yields; the worker resumes the block's fibers round after round until
// all have finished. So a barrier really is a meeting point: a thread that reads shared memory
// before the barrier that would have ordered it sees what a GPU might show — another thread's
// element not written yet.
#include <boost/context/fiber.hpp>
#include <boost/context/pooled_fixedsize_stack.hpp>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "emulator/emulator.hpp"
#include "emulator/runtime.hpp"

namespace gpulab::emulated {

namespace ctx = boost::context;

namespace detail {

thread_local BlockContext* current_block = nullptr;
thread_local uint3 current_thread_idx = {0, 0, 0};

namespace {

struct Warp {
  unsigned live = 0;     // lanes not finished
  unsigned lanes = 0;    // lanes that exist
  unsigned arrived = 0;  // at the current exchange
  std::uint64_t generation = 0;
  std::uint64_t slots[2][32] = {};  // by generation parity: a fast lane cannot overwrite a slow one's read
};

struct Thread {
  uint3 idx;
  unsigned linear = 0;
  ctx::fiber fiber;  // the suspended thread, while it waits
  ctx::fiber sink;   // the worker's scheduler, to yield to
  bool done = false;
};

// One block's shared state, on the worker running it.
struct Block {
  std::vector<Thread> threads;
  std::vector<Warp> warps;
  unsigned live = 0;
  unsigned arrived = 0;  // at the current __syncthreads
  std::uint64_t barrier_generation = 0;
  std::uint64_t progress = 0;  // any arrival, release or exit: no progress in a round is a deadlock
  std::exception_ptr error;
};

thread_local Block* running_block = nullptr;
thread_local Thread* running_thread = nullptr;

// Back to the worker, which sets running_thread and current_thread_idx before it resumes a fiber.
void yield() {
  Thread* self = running_thread;
  self->sink = std::move(self->sink).resume();
}

void release_waiters(Block& b, Warp& w) {
  if (b.arrived > 0 && b.arrived == b.live) {
    b.arrived = 0;
    ++b.barrier_generation;
  }
  if (w.arrived > 0 && w.arrived == w.live) {
    w.arrived = 0;
    ++w.generation;
  }
}

}  // namespace

void syncthreads() {
  Block& b = *running_block;
  const std::uint64_t generation = b.barrier_generation;
  ++b.progress;
  if (++b.arrived == b.live) {  // the last to arrive opens the barrier and goes on
    b.arrived = 0;
    ++b.barrier_generation;
    return;
  }
  while (b.barrier_generation == generation) yield();
}

const std::uint64_t* warp_exchange(std::uint64_t value) {
  Block& b = *running_block;
  Warp& w = b.warps[running_thread->linear / 32];
  const std::uint64_t generation = w.generation;
  std::uint64_t* slots = w.slots[generation & 1];
  slots[running_thread->linear % 32] = value;
  ++b.progress;
  if (++w.arrived == w.live) {
    w.arrived = 0;
    ++w.generation;
  } else {
    while (w.generation == generation) yield();
  }
  return slots;
}

unsigned int lane_id() { return running_thread->linear % 32; }
unsigned int warp_lanes() { return running_block->warps[running_thread->linear / 32].lanes; }

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

void run_block(const std::function<void()>& body, detail::BlockContext& context) {
  const dim3 dim = context.block_dim;
  const unsigned count = dim.x * dim.y * dim.z;
  Block block;
  block.threads.resize(count);
  block.warps.resize((count + 31) / 32);
  block.live = count;
  for (unsigned w = 0; w < block.warps.size(); ++w) {
    block.warps[w].lanes = block.warps[w].live = std::min(32u, count - 32 * w);
  }
  detail::running_block = &block;
  detail::current_block = &context;

  for (unsigned t = 0; t < count; ++t) {
    Thread& thread = block.threads[t];
    thread.linear = t;
    thread.idx = {t % dim.x, t / dim.x % dim.y, t / (dim.x * dim.y)};
    thread.fiber = ctx::fiber(std::allocator_arg, stack_pool(), [&block, &thread, &body](ctx::fiber&& sink) {
      thread.sink = std::move(sink);
      try {
        body();
      } catch (const ctx::detail::forced_unwind&) {
        throw;  // the fiber is being destroyed: let boost unwind it
      } catch (...) {
        if (!block.error) block.error = std::current_exception();
      }
      // An exited thread no longer holds back its block's barriers or its warp's exchanges.
      thread.done = true;
      --block.live;
      --block.warps[thread.linear / 32].live;
      ++block.progress;
      detail::release_waiters(block, block.warps[thread.linear / 32]);
      return std::move(thread.sink);
    });
  }

  for (;;) {
    const std::uint64_t before = block.progress;
    unsigned waiting = 0;
    for (Thread& thread : block.threads) {
      if (thread.done) continue;
      detail::running_thread = &thread;
      detail::current_thread_idx = thread.idx;
      thread.fiber = std::move(thread.fiber).resume();
      if (!thread.done) ++waiting;
    }
    if (block.error) std::rethrow_exception(block.error);  // destroying the fibers unwinds them
    if (waiting == 0) break;
    if (block.progress == before) {
      throw std::runtime_error(
          "deadlock: " + std::to_string(waiting) +
          " threads wait at a __syncthreads() or warp operation that the other threads of their block or warp "
          "never reach (is a barrier inside a branch only some threads take?)");
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

void run_blocks(const LaunchConfig& config, const std::function<void()>& body) {
  const dim3 grid = config.grid;
  const std::size_t blocks = std::size_t{grid.x} * grid.y * grid.z;
  pool().run(blocks, [&](std::size_t b) {
    // Dynamic shared memory is poisoned for every block: reading it before writing it shows.
    thread_local std::vector<unsigned char> shared;
    shared.assign(config.shared_bytes + 16, 0xFF);
    detail::BlockContext context;
    context.block_idx = {static_cast<unsigned>(b % grid.x), static_cast<unsigned>(b / grid.x % grid.y),
                         static_cast<unsigned>(b / (std::size_t{grid.x} * grid.y))};
    context.block_dim = config.block;
    context.grid_dim = grid;
    const auto address = reinterpret_cast<std::uintptr_t>(shared.data());
    context.dynamic_shared = shared.data() + ((16 - address % 16) % 16);
    run_block(body, context);
  });
}

}  // namespace gpulab::emulated
