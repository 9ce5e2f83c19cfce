#pragma once
// The GPU's clock for phase_times.hpp's repetitions (GPU builds, and the grader's driver on the
// emulator, where it holds nothing): the harness's (gpu_clock.cpp) and the grader's driver's, one
// code. Header-only: the driver compiles it into the learner's program.
//
// CUDA events are recorded in stream order, so each interval is what the GPU spent between two
// marks. When asked (hold_next), the compute phase's start event is held back (StreamHold) until
// the host has queued the phase's work behind it: on a GPU left idle by the synchronous upload,
// the event would otherwise run at once and time the launch too (an add of 4097 × 4097 floats
// took 69 µs so against 52 µs held, on an H200). Held, the GPU waits for the host's queueing
// instead, which the end-to-end time must not count: it comes from a repetition not held
// (timed_repetition).
#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "common/cuda_check.hpp"
#include "common/phase_times.hpp"
#if !defined(GPULAB_EMULATED)
#include "common/stream_hold.hpp"
#endif

namespace gpulab {

// What a failed call does in GPU Lab's own code: throws CudaError (common/cuda_check.hpp).
struct ThrowOnError {
  void operator()(cudaError_t code, const char* what) const { cuda_check(code, what, __FILE__, __LINE__); }
};

// CUDA events on the default stream for the four marks of a repetition: 0 before the upload, 1
// after it, 2 after compute, 3 after the download. `check(cudaError_t, const char* what)` is what
// a failed call does (the harness throws; the grader's driver reports and exits).
template <typename Check>
class EventClock {
 public:
  explicit EventClock(Check check) : check_(check) {
    for (cudaEvent_t& e : events_) check_(cudaEventCreate(&e), "cudaEventCreate");
  }
  ~EventClock() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  EventClock(const EventClock&) = delete;
  EventClock& operator=(const EventClock&) = delete;

  // Holds the next repetition's compute phase, if holds are still wanted (two that ran out in a
  // row — a phase that waits for the GPU inside, a synchronous call — and they no longer are).
  // Never on the emulator, whose events are the CPU's.
  bool hold_next() {
#if defined(GPULAB_EMULATED)
    return false;
#else
    hold_next_ = holding_;
    return hold_next_;
#endif
  }
  // Whether the last held repetition's hold was released, not run out.
  bool held() const { return held_ok_; }

  // Events: 0 before upload, 1 after it, 2 compute's start (after the hold, if any), 3 after
  // compute, 4 after download. A hold lies between 1 and 2, in no phase.
  void mark(int k) {
    if (k == 0) record(0);
    if (k == 1) {
      record(1);
#if !defined(GPULAB_EMULATED)
      if (hold_next_) {
        hold_.hold(kHoldTimeoutUs);
        holding_now_ = true;
        hold_next_ = false;
      }
#endif
      record(2);
    }
    if (k == 2) {
      record(3);
#if !defined(GPULAB_EMULATED)
      if (holding_now_) hold_.release();
#endif
    }
    if (k == 3) record(4);
  }
  // Until everything marked so far has finished (which also surfaces faults inside kernels).
  void wait() {
    check_(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
#if !defined(GPULAB_EMULATED)
    if (!holding_now_) return;
    holding_now_ = false;
    held_ok_ = !hold_.timed_out();
    holds_timed_out_ = held_ok_ ? 0 : holds_timed_out_ + 1;
    if (holds_timed_out_ >= 2) holding_ = false;
#endif
  }
  // h2d, kernel and d2h from the marks (the end-to-end time is the caller's host clock).
  PhaseTimes phases() {
    PhaseTimes t;
    t.h2d_ms = elapsed(0, 1);
    t.kernel_ms = elapsed(2, 3);
    t.d2h_ms = elapsed(3, 4);
    return t;
  }

 private:
  // Longer than the host takes to queue a step of many kernels; a phase that waits for the GPU
  // inside waits this long.
  static constexpr std::uint32_t kHoldTimeoutUs = 2000;

  void record(std::size_t k) { check_(cudaEventRecord(events_[k]), "cudaEventRecord"); }
  double elapsed(std::size_t a, std::size_t b) {
    float ms = 0;
    check_(cudaEventElapsedTime(&ms, events_[a], events_[b]), "cudaEventElapsedTime");
    return ms;
  }

  Check check_;
  std::array<cudaEvent_t, 5> events_{};
#if !defined(GPULAB_EMULATED)
  gpu::StreamHold hold_;
#endif
  bool holding_ = true;       // holds are still wanted
  bool hold_next_ = false;    // the next compute phase is held
  bool holding_now_ = false;  // this repetition's is
  bool held_ok_ = false;      // the last hold was released, not run out
  int holds_timed_out_ = 0;
};

}  // namespace gpulab
