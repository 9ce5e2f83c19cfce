#pragma once
// A kernel split at its barriers, for the fast path: each thread a C++ coroutine that suspends at
// each __syncthreads(), a block run phase by phase — every thread up to the barrier, then every
// thread on to the next — with no fiber and no stack of its own (a fiber switch a thread a barrier
// cost 20-50 ns; a coroutine's resume about 5). The source rewrite gives a kernel this second
// body where its barriers are plainly visible (rewrite_jobs.cpp, phased_kernel): the body's own
// __syncthreads() as statements, and no call but to functions that cannot reach a barrier or a
// warp exchange. The checked mode runs the kernel's first body, on fibers, where its checks see
// every barrier (phases_on is false there). Part of the device language's header
// (kernel_threads.hpp includes it; not to be included alone).
#include <coroutine>
#include <new>

namespace gpulab::emulated::detail {

// Whether the running thread loop runs kernels in phases (the fast one: kernel_threads.hpp), and
// whether a phased thread is running now (a fiber's barrier there is the rewrite's mistake).
extern thread_local constinit bool phases_on, in_phased_thread;
// Phases on the fast path: yes, unless GPULAB_NO_PHASES=1 (every kernel on fibers, as before;
// emulator_benchmark sets it to time both).
extern bool phases_allowed;

// The worker's storage for a block's coroutines and their copies of the kernel's arguments, taken
// back whole when the next block starts: the room left in its current piece, and where a new
// piece comes from (phases.cpp).
extern thread_local constinit std::byte *phase_next, *phase_end;
void* phase_storage_from_new_piece(std::size_t bytes);
// (What a phased body calls is always inlined, and so built as the body is, without the checks'
// instrumentation: GCC inlines no function built with it into one built without, and each call
// left would cost as much as the work of a phase.)
#define GPULAB_PHASE_INLINE [[gnu::always_inline, gnu::no_sanitize_thread]] inline
GPULAB_PHASE_INLINE void* phase_storage(std::size_t bytes) {
  bytes = (bytes + 15) / 16 * 16;
  if (bytes > static_cast<std::size_t>(phase_end - phase_next)) return phase_storage_from_new_piece(bytes);
  void* at = phase_next;
  phase_next += bytes;
  return at;
}

// A suspension that never waits, or always does (std::suspend_never and suspend_always, inlined).
struct PhaseGoOn {
  GPULAB_PHASE_INLINE bool await_ready() const noexcept { return true; }
  GPULAB_PHASE_INLINE void await_suspend(std::coroutine_handle<>) const noexcept {}
  GPULAB_PHASE_INLINE void await_resume() const noexcept {}
};
struct PhaseStop {
  GPULAB_PHASE_INLINE bool await_ready() const noexcept { return false; }
  GPULAB_PHASE_INLINE void await_suspend(std::coroutine_handle<>) const noexcept {}
  GPULAB_PHASE_INLINE void await_resume() const noexcept {}
};

// A kernel thread threw: the block's error (scheduler.cpp; kernel_threads.hpp declares it too).
void thread_threw();
// The barrier the last thread to stop waits at (for the observers: the block's other threads
// wait at the same one, or the kernel is wrong in a way only the checked mode reports).
extern thread_local constinit const char* phase_barrier_file;
extern thread_local constinit int phase_barrier_line;

// One CUDA thread of a kernel run in phases. (Its promise holds nothing: the calls to get at it
// from the body's suspensions would not be inlined. A thread that threw has ended: done().)
struct PhasedThread {
  struct promise_type {
    GPULAB_PHASE_INLINE PhasedThread get_return_object() {
      return {std::coroutine_handle<promise_type>::from_promise(*this)};
    }
    GPULAB_PHASE_INLINE PhaseGoOn initial_suspend() noexcept { return {}; }  // to its first barrier at once
    GPULAB_PHASE_INLINE PhaseStop final_suspend() noexcept { return {}; }    // its runner destroys it
    GPULAB_PHASE_INLINE void return_void() noexcept {}
    void unhandled_exception() { thread_threw(); }
    GPULAB_PHASE_INLINE static void* operator new(std::size_t bytes) { return phase_storage(bytes); }
    GPULAB_PHASE_INLINE static void operator delete(void*, std::size_t) noexcept {}
  };
  std::coroutine_handle<promise_type> handle;
};

// What `__syncthreads();` becomes in the phased body: the thread stops here until the block's
// every other live thread has reached a barrier too.
struct PhaseBarrier {
  const char* file;
  int line;
  GPULAB_PHASE_INLINE bool await_ready() const noexcept { return false; }
  GPULAB_PHASE_INLINE void await_suspend(std::coroutine_handle<>) const noexcept {
    phase_barrier_file = file;
    phase_barrier_line = line;
  }
  GPULAB_PHASE_INLINE void await_resume() const noexcept {}
};

// The running thread's coroutine, started: kept for the block's next phase unless it has ended.
void keep_phased(std::coroutine_handle<PhasedThread::promise_type> thread);

// A thread of a phased kernel: its coroutine, started with a copy of the kernel's arguments (the
// lambda's captures), as the first body would run with its parameters. (The lambda is generic,
// `(auto)`: GCC 12 gives a coroutine lambda's pieces one symbol in an extern "C" function.)
template <typename Body>
GPULAB_PHASE_INLINE void run_phased(Body&& body) {
  using Own = std::remove_reference_t<Body>;
  Own* own = new (phase_storage(sizeof(Own))) Own(static_cast<Body&&>(body));
  in_phased_thread = true;
  const PhasedThread thread = (*own)(0);
  in_phased_thread = false;
  keep_phased(thread.handle);
}

// The phases after the first, once the thread loop has started every thread: every thread kept
// is resumed, barrier after barrier, until all have ended (phases.cpp).
void run_phases();
bool phases_waiting();
// A new block on this worker (scheduler.cpp): its storage used from the start again.
void begin_phases();

}  // namespace gpulab::emulated::detail
