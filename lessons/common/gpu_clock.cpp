// CUDA events for the harness's phase timing: recorded in stream order, so each interval is what
// the GPU spent between two marks. When asked (hold_next), the compute phase's start event is held
// back (StreamHold) until the host has queued the phase's work behind it: on a GPU left idle by
// the synchronous upload, the event would otherwise run at once and time the launch too (an add of
// 4097 × 4097 floats took 69 µs so against 52 µs held, on an H200). Held, the GPU waits for the
// host's queueing instead, which the end-to-end time must not count: measure() takes that from a
// repetition not held.
#include <array>

#include "common/cuda_check.hpp"
#include "common/measure.hpp"
#include "common/stream_hold.hpp"

namespace gpulab {

namespace {

// Longer than the host takes to queue a step of many kernels; a phase that waits for the GPU
// inside (a synchronous call) waits this long.
constexpr std::uint32_t kHoldTimeoutUs = 2000;

class GpuClock : public PhaseClock {
 public:
  GpuClock() {
    for (cudaEvent_t& e : events_) GPULAB_CUDA_CHECK(cudaEventCreate(&e));
  }
  ~GpuClock() override {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }
  GpuClock(const GpuClock&) = delete;
  GpuClock& operator=(const GpuClock&) = delete;

  bool hold_next() override {
    hold_next_ = holding_;
    return hold_next_;
  }
  bool held() override { return held_ok_; }

  // Events: 0 before upload, 1 after it, 2 compute's start (after the hold, if any), 3 after
  // compute, 4 after download. A hold lies between 1 and 2, in no phase.
  void mark(int k) override {
    if (k == 0) record(0);
    if (k == 1) {
      record(1);
      if (hold_next_) {
        hold_.hold(kHoldTimeoutUs);
        holding_now_ = true;
        hold_next_ = false;
      }
      record(2);
    }
    if (k == 2) {
      record(3);
      if (holding_now_) hold_.release();
    }
    if (k == 3) record(4);
  }
  // Synchronising here also surfaces faults inside kernels (an illegal address, say).
  void wait() override {
    GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
    if (!holding_now_) return;
    holding_now_ = false;
    held_ok_ = !hold_.timed_out();
    // A phase that waits for the GPU inside (a synchronous call) waited for the hold to run out,
    // and its times include the wait; twice in a row, and the phase is no longer held.
    holds_timed_out_ = held_ok_ ? 0 : holds_timed_out_ + 1;
    if (holds_timed_out_ >= 2) holding_ = false;
  }
  PhaseTimes phases() override {
    PhaseTimes t;
    t.h2d_ms = elapsed(0, 1);
    t.kernel_ms = elapsed(2, 3);
    t.d2h_ms = elapsed(3, 4);
    return t;
  }

 private:
  void record(std::size_t k) { GPULAB_CUDA_CHECK(cudaEventRecord(events_[k])); }
  double elapsed(std::size_t a, std::size_t b) {
    float ms = 0;
    GPULAB_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[a], events_[b]));
    return ms;
  }
  std::array<cudaEvent_t, 5> events_{};
  gpu::StreamHold hold_;
  bool holding_ = true;       // holds are still wanted (none has run out twice in a row)
  bool hold_next_ = false;    // the next compute phase is held
  bool holding_now_ = false;  // this repetition's is
  bool held_ok_ = false;      // the last hold was released, not run out
  int holds_timed_out_ = 0;
};

}  // namespace

std::unique_ptr<PhaseClock> make_gpu_clock() { return std::make_unique<GpuClock>(); }

}  // namespace gpulab
