// The GPU's phase clock (lessons/common/gpu_clock.cpp): the kernel time of a repetition leaves out
// the host's queueing (the stream is held until the work is queued), the end-to-end time keeps it,
// and a compute phase that waits for the GPU inside is timed without hanging. Skipped (exit 77)
// without a GPU.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/gpu_memory.hpp"
#include "common/measure.hpp"
#include "common/stream_hold.hpp"
#include "common/verify.hpp"
#include "vector_add/vector_add.hpp"

using namespace gpulab;

namespace {

constexpr std::size_t kN = 4096;

// c = a + b on the GPU, the host busy for `pause` before it launches, and (with `waits_inside`)
// waiting for the GPU after it, as a synchronous call in a learner's compute would.
struct SlowToQueue : Run {
  std::chrono::microseconds pause{0};
  bool waits_inside = false;
  std::vector<float> ha = std::vector<float>(kN, 1.5f), hb = std::vector<float>(kN, 2.25f);
  gpu::DeviceBuffer<float> a{kN, "a"}, b{kN, "b"}, c{kN, "c"};

  void poison() override { c.fill_bytes(kPoisonByte); }
  void upload() override {
    a.copy_from(ha);
    b.copy_from(hb);
  }
  void compute() override {
    std::this_thread::sleep_for(pause);
    vector_add::blocks(a.span(), b.span(), c.span(), 256);
    if (waits_inside) GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
  }
  CheckResult check() const override {
    std::vector<float> got(kN);
    c.copy_to(got);
    return compare(got, std::vector<double>(kN, 3.75), {0, 0}, "c");
  }
};

RunOptions few_reps() {
  RunOptions options;
  options.reps = 5;
  options.warmup = 1;
  return options;
}

}  // namespace

TEST_CASE("a held stream waits for its release, or for its timeout", "[gpu_clock][gpu]") {
  gpu::StreamHold hold;
  hold.hold(100000);
  hold.release();
  GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
  CHECK_FALSE(hold.timed_out());

  const auto start = std::chrono::steady_clock::now();
  hold.hold(1000);  // nobody lets go
  GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(hold.timed_out());
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::microseconds(1000));
}

TEST_CASE("the kernel time leaves out the host's queueing, the end-to-end time keeps it", "[gpu_clock][gpu]") {
  SlowToQueue run;
  run.pause = std::chrono::microseconds(1000);
  const Measurement m = measure(run, Backend::gpu, few_reps());
  REQUIRE(m.final_check.passed);
  REQUIRE(m.samples.size() == 5);
  // A 4096-element add, without the millisecond before its launch (the fastest repetition: other
  // processes on the GPU can slow any one).
  CHECK(m.kernel.min < 0.5);
  CHECK(m.total.min >= 1.0);
}

TEST_CASE("a compute phase that waits for the GPU inside is timed, without hanging or counting the hold",
          "[gpu_clock][gpu]") {
  SlowToQueue run;
  run.waits_inside = true;
  const auto start = std::chrono::steady_clock::now();
  const Measurement m = measure(run, Backend::gpu, few_reps());
  REQUIRE(m.final_check.passed);
  REQUIRE(m.samples.size() == 5);
  CHECK(m.total.max < 1.5);  // the hold (2 ms before it runs out) is in no end-to-end time
  CHECK(m.kernel.median <= m.total.median);
  // Two holds ran out (the warm-up's and the first timed repetition's), then none was tried.
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
}
