// The emulator's execution: blocks are spread over a pool of worker threads; inside a block every
// CUDA thread runs until it must wait for others (__syncthreads, a warp shuffle or vote) and then
// yields; the worker resumes the block's waiting threads round after round until all have
// finished, each thread of a round handing over straight to the next. So a barrier really is a
// meeting point: a thread that reads shared memory before the barrier that would have ordered it
// sees what a GPU might show — another thread's element not written yet.
//
// Threads start one after another on a "runner" fiber. A thread that finishes without waiting
// needs no fiber of its own; one that waits keeps the runner it was on (its stack is there), and
// a fresh runner starts the next thread. So a kernel without barriers costs one fiber per worker
// (its runner parks between blocks), and the order in which threads run is the same either way:
// thread 0 until it waits or ends, then thread 1, ...
//
// A thread the checked mode stops (a wild access) is abandoned where it stands: its fiber is
// never resumed nor unwound (unwinding could not pass the instrumentation's calls, which GCC
// takes to throw nothing), its stack is left to the process, and the block's other threads are
// unwound as for any error. A wild access the checks did not see faults on the unmapped pages
// around device and shared memory; the SIGSEGV handler below stops that thread the same way.
#include <pthread.h>
#include <signal.h>

#include <boost/context/fiber.hpp>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "emulator/execution/block_state.hpp"
#include "emulator/execution/fiber_stacks.hpp"
#include "emulator/execution/scheduler.hpp"
#include "emulator/execution/shared_memory.hpp"
#include "emulator/language/cuda_language.hpp"
#include "emulator/observers/checker.hpp"
#include "emulator/observers/observer.hpp"

// The built-in variables (cuda_language.hpp): the running block's, and the running thread's index.
thread_local constinit uint3 threadIdx = {0, 0, 0};
thread_local constinit uint3 blockIdx = {0, 0, 0};
thread_local constinit dim3 blockDim{1, 1, 1};
thread_local constinit dim3 gridDim{1, 1, 1};

namespace gpulab::emulated {

namespace ctx = boost::context;

namespace detail {

thread_local constinit BlockContext* current_block = nullptr;
thread_local constinit Thread* running_thread = nullptr;
thread_local constinit Block* running_block = nullptr;

namespace {

thread_local constinit bool on_thread_fiber = false;  // a kernel thread is running (not the worker)

// Who switches to whom. A waiting thread hands over straight to the next waiting thread of the
// round (one switch a thread at each barrier, not two through the worker); the last of the round,
// a thread's first wait, its end and a stopped thread go back to the worker. Boost hands the
// context that was switched to the continuation of the one that switched, and that is kept where
// it belongs: in the switching thread's record, or as the worker's continuation.
thread_local ctx::fiber worker;                      // the worker's continuation while a kernel thread runs
thread_local constinit Thread* handed_by = nullptr;  // the thread that switched here (nullptr: the worker)
thread_local constinit Thread* came_back = nullptr;  // for the worker: whose continuation it gets back

// After a switch returns here, or at a fiber's start: keeps the continuation of the one that switched.
void keep(ctx::fiber&& from) {
  if (handed_by == nullptr) {
    worker = std::move(from);
  } else {
    handed_by->fiber = std::move(from);
  }
}

// Back to the worker, which gets `self`'s continuation (nullptr: a runner's, parked or ended).
void to_worker(Thread* self) {
  came_back = self;
  keep(std::move(worker).resume());
}

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
  came_back = running_thread;
  (void)std::move(worker).resume();
  std::abort();  // never resumed
}

}  // namespace

// Waits: the first time, the thread gets a record and goes back to the worker, which starts a new
// runner for the threads after it; after that it hands over to the next waiting thread that can
// run (whoever resumes a thread sets running_thread and ::threadIdx first).
void yield() {
  if (in_phased_thread) {
    throw std::logic_error(
        "the emulator ran this kernel in phases, split at the __syncthreads() in its own text, but it reached another "
        "barrier or warp operation (through a macro?): GPU Lab's mistake, please report it; GPULAB_NO_PHASES=1 runs "
        "it as before");
  }
  Block& b = *running_block;
  if (running_thread == nullptr) {
    Thread& self = b.threads[running_linear()];
    self.idx = ::threadIdx;
    self.done = false;
    self.slot = static_cast<unsigned>(b.waiting.size());
    running_thread = &self;
    b.waiting.push_back(&self);
    uint3 next = self.idx;  // the runner that takes over starts at the next thread
    if (++next.x == b.dim.x) {
      next.x = 0;
      if (++next.y == b.dim.y) next.y = 0, ++next.z;
    }
    b.next = running_linear() + 1;
    b.next_idx = next;
    to_worker(&self);
    return;
  }
  Thread* self = running_thread;
  if (!b.error) {
    for (std::size_t i = self->slot + 1; i < b.waiting.size(); ++i) {
      Thread* next = b.waiting[i];
      if (next->done || !next->fiber) continue;
      running_thread = next;
      ::threadIdx = next->idx;
      handed_by = self;
      keep(std::move(next->fiber).resume());
      return;
    }
  }
  to_worker(self);
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

// What a runner runs next: the worker sets it before it resumes one.
struct RunnerJob {
  Block* block = nullptr;
  detail::ThreadLoop loop = nullptr;
  const void* body = nullptr;
};
thread_local constinit RunnerJob runner_job;

// Starts threads one after another until one waits (then this runner is that thread's fiber,
// and the worker starts a new runner for the rest) or all have started. A runner on which no
// thread waited parks instead of ending, and the worker resumes it for its next block: a kernel
// without barriers costs one fiber per worker, not one per block. (Parking the runners of threads
// that waited as well, for the next block's, was slower: 1.06-1.13 s against 0.97 s for the tree
// reduction of emulator_benchmark.)
ctx::fiber start_runner() {
  return ctx::fiber(std::allocator_arg, detail::ShiftedStacks(), [](ctx::fiber&& sink) {
    detail::keep(std::move(sink));
    for (;;) {
      const RunnerJob job = runner_job;
      Block& block = *job.block;
      const detail::Starts from{block.next, block.next_idx, block.dim, block.count, &block.counting};
      const unsigned next = job.loop(job.body, from);
      block.next = std::max(block.next, next);
      if (detail::running_thread != nullptr) {  // the thread that waited here has ended: so does its runner
        detail::came_back = detail::running_thread;
        return std::move(detail::worker);
      }
      detail::to_worker(nullptr);  // parked until the worker's next block
    }
  });
}

// The worker's parked runner (see start_runner), if it has one.
ctx::fiber& idle_runner() {
  thread_local ctx::fiber runner;
  return runner;
}

void run_block(detail::ThreadLoop loop, const void* body, detail::BlockContext& context) {
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
  detail::begin_phases();
  detail::running_block = &block;
  detail::current_block = &context;
  ::blockIdx = context.block_idx;
  ::blockDim = context.block_dim;
  ::gridDim = context.grid_dim;

  for (;;) {
    const std::uint64_t before = block.progress;
    while (block.next < count && !block.error) {
      // (A new runner's fiber comes from the pool; when no thread waits on it, it parks.)
      detail::on_thread_fiber = true;
      runner_job = {&block, loop, body};
      detail::handed_by = nullptr;
      ctx::fiber& idle = idle_runner();
      ctx::fiber runner = std::move(idle ? std::move(idle) : start_runner()).resume();
      detail::on_thread_fiber = false;
      Thread* waited = detail::came_back;  // the thread that waits on this runner's stack, if one does
      if (stopped(block, std::move(runner))) {
        if (waited != nullptr) waited->done = true;
        break;
      }
      if (waited != nullptr) {
        waited->fiber = std::move(runner);
      } else if (runner) {
        idle = std::move(runner);  // every thread it started has ended: parked for the next block
      }
    }
    // A round: the waiting threads in the order they first waited, each handing over to the next.
    for (std::size_t i = 0; i < block.waiting.size() && !block.error; ++i) {
      Thread* thread = block.waiting[i];
      if (thread->done || !thread->fiber) continue;
      detail::running_thread = thread;
      ::threadIdx = thread->idx;
      detail::on_thread_fiber = true;
      detail::handed_by = nullptr;
      ctx::fiber next = std::move(thread->fiber).resume();
      detail::on_thread_fiber = false;
      Thread* last = detail::came_back;  // the round's last thread so far
      if (stopped(block, std::move(next))) {
        last->done = true;
        break;
      }
      last->fiber = std::move(next);
      i = last->slot;
    }
    unsigned waiting = 0;
    for (const Thread* thread : block.waiting) waiting += !thread->done && thread->fiber;
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
    struct Reset {  // the observers hear of the block's end, however it ended; the worker is in no kernel
      ~Reset() {
        try {
          observe::end_block();
        } catch (...) {  // (out of memory: this block goes uncounted)
        }
        detail::current_block = nullptr, detail::running_block = nullptr;
      }
    } reset;
    run_block(loop, body, context);
  });
}

}  // namespace gpulab::emulated
