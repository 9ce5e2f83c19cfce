// Lesson 01's GPU kernels: launch errors and unwritten elements are caught (the variants at
// awkward sizes are in variants_test). Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>

#include "base/device_info.hpp"
#include "common/gpu_memory.hpp"
#include "common/random.hpp"
#include "support/lesson_runs.hpp"
#include "vector_add/vector_add.hpp"

using namespace gpulab;
using Catch::Matchers::Contains;

// The [launch-error] tests make CUDA refuse a launch on purpose: compute-sanitizer runs them with
// its API-error reports off (tools/gpu-check.sh), and the rest with everything on.
TEST_CASE("a single block past the device's limit is explained with CUDA's own error",
          "[vector_add][gpu][launch-error]") {
  const int limit = device_info().max_threads_per_block;
  try {
    test::run_variant("01", "single_block", Backend::gpu, limit + 1);
    FAIL("expected NotApplicable");
  } catch (const NotApplicable& e) {
    // CUDA's answer varies with the driver (invalid argument, invalid configuration): it is
    // passed on as CUDA gives it.
    CHECK_THAT(e.what(), Contains("at most " + std::to_string(limit) + " threads") && Contains("CUDA said: ") &&
                             Contains("'blocks'"));
  }
}

TEST_CASE("a refused launch throws with the kernel, its configuration and CUDA's message",
          "[vector_add][gpu][launch-error]") {
  gpu::DeviceBuffer<float> a(100), b(100), c(100);
  try {
    vector_add::blocks(a.span(), b.span(), c.span(), 4096);
    FAIL("expected CudaError");
  } catch (const CudaError& e) {
    const auto code = static_cast<cudaError_t>(e.code());
    CHECK(code != cudaSuccess);
    CHECK_THAT(e.what(), Contains("add_blocks<<<(1, 1, 1), (4096, 1, 1)>>>") && Contains("vector_add.cu:") &&
                             Contains(cudaGetErrorString(code)) && Contains(cudaGetErrorName(code)));
  }
  // The error was cleared: the next launch works.
  CHECK_NOTHROW(vector_add::blocks(a.span(), b.span(), c.span(), 128));
  GPULAB_CUDA_CHECK(cudaDeviceSynchronize());
}

TEST_CASE("a kernel that misses elements is caught by the poisoned output", "[vector_add][gpu]") {
  const std::size_t n = 5000;
  std::vector<float> a(n), b(n), c(n);
  fill_uniform(a, test::test_seed(), 0, -1, 1);
  fill_uniform(b, test::test_seed(), 1, -1, 1);
  std::vector<double> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = double(a[i]) + double(b[i]);
  gpu::DeviceBuffer<float> da(n), db(n), dc(n);
  da.copy_from(a);
  db.copy_from(b);
  dc.fill_bytes(kPoisonByte);
  // Only the first 4096 elements are given to the kernel, as a grid that is too small would.
  vector_add::blocks(da.span().first(4096), db.span().first(4096), dc.span().first(4096), 256);
  dc.copy_to(c);
  const CheckResult r = compare(c, expected, {1.2e-7, 0}, "vector_add blocks (gpu)");
  CHECK_FALSE(r.passed);
  CHECK(r.mismatches == n - 4096);
  CHECK_THAT(r.message, Contains("first at 4096") && Contains("never written"));
}

TEST_CASE("the float4 kernel handles spans that are not 16-byte aligned and empty ones", "[vector_add][gpu]") {
  const std::size_t n = 1031;
  std::vector<float> a(n), b(n), c(n - 1);
  fill_uniform(a, test::test_seed(), 0, -1, 1);
  fill_uniform(b, test::test_seed(), 1, -1, 1);
  gpu::DeviceBuffer<float> da(n), db(n), dc(n);
  da.copy_from(a);
  db.copy_from(b);
  dc.fill_bytes(kPoisonByte);
  // Offsetting by one float breaks the 16-byte alignment float4 needs.
  vector_add::grid_stride_float4(da.span().subspan(1), db.span().subspan(1), dc.span().subspan(1), 128);
  std::vector<float> all(n);
  dc.copy_to(all);
  std::copy(all.begin() + 1, all.end(), c.begin());
  std::vector<double> expected(n - 1);
  for (std::size_t i = 0; i + 1 < n; ++i) expected[i] = double(a[i + 1]) + double(b[i + 1]);
  const CheckResult r = compare(c, expected, {1.2e-7, 0}, "float4 offset");
  INFO(r.message);
  CHECK(r.passed);

  std::span<float> none;
  CHECK_NOTHROW(vector_add::single_block(none, none, none, 256));
  CHECK_NOTHROW(vector_add::blocks(none, none, none, 256));
  CHECK_NOTHROW(vector_add::grid_stride(none, none, none, 256));
  CHECK_NOTHROW(vector_add::grid_stride_float4(none, none, none, 256));
}

TEST_CASE("the device query reports a usable GPU", "[device][gpu]") {
  const DeviceInfo& d = device_info();
  CHECK(d.available);
  CHECK_FALSE(d.name.empty());
  CHECK(d.cc_major >= 7);
  CHECK(d.multiprocessors > 0);
  CHECK(d.max_threads_per_block >= 1024);
  CHECK(d.total_memory > 0);
  CHECK(d.driver_version > 0);
  CHECK(d.runtime_version > 0);
}
