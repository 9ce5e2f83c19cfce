// CUDA events for the harness's phase timing: recorded in stream order, so each interval is what
// the GPU spent between two marks.
#include <array>

#include "common/cuda_check.hpp"
#include "common/measure.hpp"

namespace gpulab {

namespace {

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

  void mark(int k) override { GPULAB_CUDA_CHECK(cudaEventRecord(events_[static_cast<std::size_t>(k)])); }
  // Synchronising here also surfaces faults inside kernels (an illegal address, say).
  void wait() override { GPULAB_CUDA_CHECK(cudaDeviceSynchronize()); }
  PhaseTimes phases() override {
    PhaseTimes t;
    t.h2d_ms = elapsed(0, 1);
    t.kernel_ms = elapsed(1, 2);
    t.d2h_ms = elapsed(2, 3);
    return t;
  }

 private:
  double elapsed(std::size_t a, std::size_t b) {
    float ms = 0;
    GPULAB_CUDA_CHECK(cudaEventElapsedTime(&ms, events_[a], events_[b]));
    return ms;
  }
  std::array<cudaEvent_t, 4> events_{};
};

}  // namespace

std::unique_ptr<PhaseClock> make_gpu_clock() { return std::make_unique<GpuClock>(); }

}  // namespace gpulab
