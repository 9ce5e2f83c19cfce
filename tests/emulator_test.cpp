// The emulator's model of CUDA, through small kernels built from one source for both targets.
// Compiled twice: GPULAB_TEST_ON_GPU = 0 (label emu, runs everywhere) and 1 (label gpu),
// so the same checks hold on the emulator and on a real GPU. The tests marked [emulator-only]
// show what only the emulator promises (a missing barrier fails, checked mode, deadlocks).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

#include "common/cuda_error.hpp"
#include "common/random.hpp"
#include "common/targets.hpp"
#include "emulator/runtime/device.hpp"
#include "kernels/emulator_kernels.hpp"
#include "support/lesson_runs.hpp"
#include "support/test_target.hpp"
#if !GPULAB_TEST_ON_GPU
#include "emulator/execution/scheduler.hpp"
#include "emulator/observers/checker.hpp"
#endif

using namespace gpulab;
using Catch::Matchers::Contains;

namespace k = gpulab::test_kernels;
template <typename T>
using Buffer = DeviceBuffer<T>;  // on the test's backend (test_target.hpp)

namespace {

std::vector<float> random_floats(std::size_t n, std::uint64_t stream) {
  std::vector<float> v(n);
  fill_uniform(v, test::test_seed(), stream, -1.0f, 1.0f);
  return v;
}

template <typename T>
Buffer<T> upload(const std::vector<T>& host, const char* name) {
  Buffer<T> b(host.size(), name);
  b.copy_from(host);
  return b;
}

template <typename T>
std::vector<T> download(const Buffer<T>& b) {
  std::vector<T> host(b.size());
  b.copy_to(host);
  return host;
}

}  // namespace

TEST_CASE("threads of a block meet at __syncthreads: a reverse through shared memory", "[emulator]") {
  const int block = GENERATE(32, 100, 256, 1024);
  const std::size_t n = GENERATE(1, 1000, 4096);
  CAPTURE(block, n);
  std::vector<int> in(n);
  std::iota(in.begin(), in.end(), 7);
  auto din = upload(in, "in");
  Buffer<int> dout(n, "out");
  dout.fill_bytes(0xFF);
  k::reverse_in_blocks(din.span(), dout.span(), block, true);
  const auto out = download(dout);
  std::size_t wrong = 0;
  for (std::size_t base = 0; base < n; base += static_cast<std::size_t>(block)) {
    const std::size_t end = std::min(n, base + static_cast<std::size_t>(block));
    for (std::size_t i = base; i < end; ++i) {
      const std::size_t mirror = base + (static_cast<std::size_t>(block) - 1 - (i - base));
      if (mirror < n && out[i] != in[mirror]) ++wrong;
    }
  }
  CHECK(wrong == 0);
}

#if !GPULAB_TEST_ON_GPU
TEST_CASE("a kernel that forgets __syncthreads is reported by racecheck, where it reads", "[emulator][emulator-only]") {
  // On a GPU the same race gives wrong answers some of the time; racecheck names it every time,
  // with both accesses' lines, and the launch fails with that report.
  std::vector<int> in(1024);
  std::iota(in.begin(), in.end(), 1);
  auto din = upload(in, "in");
  Buffer<int> dout(in.size(), "out");
  try {
    k::reverse_in_blocks(din.span(), dout.span(), 256, false);
    FAIL("the race was not reported");
  } catch (const CudaError& e) {
    CHECK_THAT(e.what(), Contains("racecheck in kernel reverse_kernel<false>") && Contains("Race reported between") &&
                             Contains("emulator_kernels.cu:") && Contains("'slots' (1024 × int") &&
                             Contains("no __syncthreads() between them"));
  }
}
#endif

TEST_CASE("a tree reduction in dynamic shared memory sums each block", "[emulator]") {
  const int block = GENERATE(32, 256, 1024);
  const std::size_t n = GENERATE(1, 1000, 100003);
  CAPTURE(block, n);
  const auto in = random_floats(n, 1);
  const std::size_t blocks = (n + static_cast<std::size_t>(block) - 1) / static_cast<std::size_t>(block);
  auto din = upload(in, "in");
  Buffer<float> dsums(blocks, "sums");
  k::block_sums(din.span(), dsums.span(), block);
  const auto sums = download(dsums);
  for (std::size_t b = 0; b < blocks; ++b) {
    double expected = 0;
    for (std::size_t i = b * static_cast<std::size_t>(block);
         i < std::min(n, (b + 1) * static_cast<std::size_t>(block)); ++i) {
      expected += in[i];
    }
    CAPTURE(b);
    REQUIRE(std::abs(sums[b] - expected) <= 1e-5 * block);
  }
}

TEST_CASE("warp shuffles sum each warp, down and xor", "[emulator]") {
  const bool use_xor = GENERATE(false, true);
  const std::size_t n = GENERATE(32, 1000, 4096);
  CAPTURE(use_xor, n);
  const auto in = random_floats(n, 2);
  auto din = upload(in, "in");
  Buffer<float> dsums((n + 31) / 32, "sums");
  k::warp_sums(din.span(), dsums.span(), use_xor);
  const auto sums = download(dsums);
  for (std::size_t w = 0; w < sums.size(); ++w) {
    double expected = 0;
    for (std::size_t i = w * 32; i < std::min(n, w * 32 + 32); ++i) expected += in[i];
    CAPTURE(w);
    REQUIRE(std::abs(sums[w] - expected) <= 1e-5);
  }
}

TEST_CASE("warp votes count, any and all", "[emulator]") {
  const std::size_t n = 64 * 10;
  auto in = random_floats(n, 3);
  for (std::size_t i = 0; i < 32; ++i) in[i] = 1.0f;    // warp 0: all positive
  for (std::size_t i = 32; i < 64; ++i) in[i] = -1.0f;  // warp 1: none
  auto din = upload(in, "in");
  Buffer<unsigned> dcounts(n / 32, "counts");
  Buffer<int> dany(n / 32, "any"), dall(n / 32, "all");
  k::warp_votes(din.span(), dcounts.span(), dany.span(), dall.span());
  const auto counts = download(dcounts);
  const auto any = download(dany);
  const auto all = download(dall);
  for (std::size_t w = 0; w < n / 32; ++w) {
    unsigned expected = 0;
    for (std::size_t i = w * 32; i < w * 32 + 32; ++i) expected += in[i] > 0.0f;
    CAPTURE(w);
    CHECK(counts[w] == expected);
    CHECK(any[w] == (expected > 0));
    CHECK(all[w] == (expected == 32));
  }
}

TEST_CASE("atomicAdd counts across every thread of every block", "[emulator]") {
  const std::size_t n = GENERATE(1, 5000, 300001);
  CAPTURE(n);
  const auto in = random_floats(n, 4);
  auto din = upload(in, "in");
  auto dcount = upload(std::vector<unsigned>{0}, "count");
  k::count_above(din.span(), 0.25f, dcount.span(), 128);
  const auto expected = static_cast<unsigned>(std::count_if(in.begin(), in.end(), [](float x) { return x > 0.25f; }));
  CHECK(download(dcount)[0] == expected);
}

TEST_CASE("atomicMax and atomicMin find the extremes across blocks", "[emulator]") {
  const std::size_t n = GENERATE(1, 100000);
  CAPTURE(n);
  const auto values = random_floats(n, 7);
  std::vector<int> in(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<int>(values[i] * 1e9f);
  auto din = upload(in, "in");
  auto dext = upload(std::vector<int>{std::numeric_limits<int>::min(), std::numeric_limits<int>::max()}, "extremes");
  k::extremes(din.span(), dext.span());
  const auto ext = download(dext);
  CHECK(ext[0] == *std::max_element(in.begin(), in.end()));
  CHECK(ext[1] == *std::min_element(in.begin(), in.end()));
}

TEST_CASE("3-D grids and blocks give every thread its own index", "[emulator]") {
  const Dims grid{3, 2, 2}, block{4, 3, 2};
  const std::size_t threads = 3 * 2 * 2 * 4 * 3 * 2;
  Buffer<unsigned> dout(threads, "out");
  dout.fill_bytes(0xFF);
  k::record_indices(dout.span(), grid, block);
  const auto out = download(dout);
  for (std::size_t i = 0; i < threads; ++i) REQUIRE(out[i] == i);
}

TEST_CASE("a tiled shared-memory matrix multiply matches the CPU", "[emulator]") {
  const int n = GENERATE(1, 17, 128);
  CAPTURE(n);
  const auto size = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  const auto a = random_floats(size, 5), b = random_floats(size, 6);
  auto da = upload(a, "a"), db = upload(b, "b");
  Buffer<float> dc(size, "c");
  dc.fill_bytes(0x7F);
  k::tiled_matmul(da.span(), db.span(), dc.span(), n);
  const auto c = download(dc);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double expected = 0;
      for (int kk = 0; kk < n; ++kk) expected += double(a[std::size_t(i * n + kk)]) * b[std::size_t(kk * n + j)];
      CAPTURE(i, j);
      REQUIRE(std::abs(c[std::size_t(i * n + j)] - expected) <= 1e-5 * n);
    }
  }
}

namespace {
struct Config {
  Dims grid, block;
  std::size_t shared;
  bool valid;
};
const std::vector<Config> kConfigs = {
    {{1, 1, 1}, {1024, 1, 1}, 0, true},   {{1, 1, 1}, {32, 32, 1}, 0, true},
    {{1, 1, 1}, {1, 1, 64}, 0, true},     {{1, 65535, 1}, {1, 1, 1}, 0, true},
    {{1, 1, 65535}, {1, 1, 1}, 0, true},  {{1, 1, 1}, {128, 1, 1}, 48 * 1024, true},
    {{1, 1, 1}, {1025, 1, 1}, 0, false},  {{1, 1, 1}, {32, 33, 1}, 0, false},
    {{1, 1, 1}, {1, 1, 65}, 0, false},    {{1, 65536, 1}, {1, 1, 1}, 0, false},
    {{1, 1, 65536}, {1, 1, 1}, 0, false}, {{0, 1, 1}, {32, 1, 1}, 0, false},
    {{1, 1, 1}, {0, 1, 1}, 0, false},     {{1, 1, 1}, {128, 1, 1}, 48 * 1024 + 1, false},
};
}  // namespace

// [launch-error]: CUDA refuses some of these on purpose (compute-sanitizer runs it apart).
TEST_CASE("launch configurations are accepted or refused by the rules of a real GPU", "[emulator][launch-error]") {
  const Config c = GENERATE(from_range(kConfigs));
  CAPTURE(c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y, c.block.z, c.shared, c.valid);
  if (c.valid) {
    CHECK_NOTHROW(k::empty_launch(c.grid, c.block, c.shared));
    return;
  }
  try {
    k::empty_launch(c.grid, c.block, c.shared);
    FAIL("the launch was accepted");
  } catch (const CudaError& e) {
    CHECK_THAT(e.what(), Contains("launch of empty_kernel<<<") && Contains(e.cuda_message()));
#if GPULAB_TEST_ON_GPU
    // The emulator refuses the same configuration with the same CUDA error.
    try {
      UseDevice on_emulator(Backend::emulated);
      k::empty_launch(c.grid, c.block, c.shared);
      FAIL("the emulator accepted a launch the GPU refused");
    } catch (const CudaError& emulated_error) {
      CHECK(emulated_error.code() == e.code());
      CHECK(emulated_error.cuda_message() == e.cuda_message());
    }
#endif
  }
}

#if !GPULAB_TEST_ON_GPU
TEST_CASE("checked mode reports a write past the end of a buffer with its name and offset",
          "[emulator][emulator-only]") {
  Buffer<float> out(100, "out");
  Buffer<float> neighbour(100, "neighbour");
  neighbour.fill_bytes(0);
  try {
    k::write_past_end(out.span(), 3);
    FAIL("the write past the end was not reported");
  } catch (const CudaError& e) {
    // Stopped at the first wild write, which never happened: memcheck names the access.
    CHECK(e.code() == 700);
    CHECK_THAT(e.what(), Contains("past_end_kernel<<<") && Contains("Invalid __global__ write of size 4 bytes") &&
                             Contains("by thread (100,0,0) in block (0,0,0)") &&
                             Contains("element 100 of 'out' (100 elements of 4 bytes), 1 element past its end"));
  }
  // The neighbour was not touched: a correct launch passes.
  CHECK(download(neighbour) == std::vector<float>(100, 0.0f));
  CHECK_NOTHROW(k::write_past_end(out.span(), 0));
}

TEST_CASE("a wild pointer is a report, never a crash, and the next launch runs", "[emulator][emulator-only]") {
  // The address is on no page of the process: the access faults, the emulator stops that thread
  // (the instrumentation does not claim such addresses), and the launch fails like a GPU's.
  try {
    k::write_wild(std::uintptr_t{0x100000000} * 5);
    FAIL("the wild write was not reported");
  } catch (const CudaError& e) {
    CHECK(e.code() == 700);
    CHECK_THAT(e.what(), Contains("wild_write_kernel<<<") && Contains("Invalid memory access (an unmapped address)") &&
                             Contains("emulator_kernels.cu:") && Contains("no buffer is near it"));
  }
  Buffer<float> out(100, "out");
  CHECK_NOTHROW(k::write_past_end(out.span(), 0));
  CHECK(download(out) == std::vector<float>(100, 1.0f));
}

TEST_CASE("on the fast path a kernel with barriers runs in phases, to the checked fibers' very answers",
          "[emulator][emulator-only]") {
  using emulated::check::Level;
  const int block = GENERATE(32, 100, 1024);
  const std::size_t n = GENERATE(1, 1000, 100003);
  CAPTURE(block, n);
  // Run checked (fibers), then fast (phases): the same sums, bit for bit, each block in phases.
  const auto in = random_floats(n, 3);
  const std::size_t blocks = (n + static_cast<std::size_t>(block) - 1) / static_cast<std::size_t>(block);
  auto din = upload(in, "in");
  const auto sums_on = [&](Level level) {
    const emulated::check::UseLevel use(level);
    Buffer<float> dsums(blocks, "sums");
    dsums.fill_bytes(0xFF);
    if (block == 100) {  // (block_sums wants a power of 2: the reverse, whose blocks all wait too)
      std::vector<int> ints(n);
      std::iota(ints.begin(), ints.end(), 0);
      auto dints = upload(ints, "ints");
      Buffer<int> dout(n, "out");
      k::reverse_in_blocks(dints.span(), dout.span(), block, true);
      const auto out = download(dout);
      return std::vector<float>(out.begin(), out.end());
    }
    k::block_sums(din.span(), dsums.span(), block);
    return download(dsums);
  };
  const std::vector<float> checked = sums_on(Level::full);
  const std::uint64_t before = emulated::blocks_run_in_phases();
  const std::vector<float> fast = sums_on(Level::off);
  CHECK(std::memcmp(fast.data(), checked.data(), fast.size() * sizeof(float)) == 0);
  CHECK(emulated::blocks_run_in_phases() - before == (block == 100 ? (n + 99) / 100 : blocks));

  // Two barriers a step of k, at sizes no tile divides.
  const int m = 37;
  const auto a = random_floats(std::size_t{m} * m, 4), b = random_floats(std::size_t{m} * m, 5);
  auto da = upload(a, "a"), db = upload(b, "b");
  const auto product_on = [&](Level level) {
    const emulated::check::UseLevel use(level);
    Buffer<float> dc(std::size_t{m} * m, "c");
    k::tiled_matmul(da.span(), db.span(), dc.span(), m);
    return download(dc);
  };
  CHECK(product_on(Level::off) == product_on(Level::full));
}

TEST_CASE("a fault in a kernel run in phases is a report, and the next launch runs", "[emulator][emulator-only]") {
  const emulated::check::UseLevel fast(emulated::check::Level::off);
  const std::uint64_t before = emulated::blocks_run_in_phases();
  try {
    k::write_wild_after_barrier(std::uintptr_t{0x100000000} * 5);
    FAIL("the wild write was not reported");
  } catch (const CudaError& e) {
    CHECK(e.code() == 700);
    CHECK_THAT(e.what(), Contains("wild_after_barrier_kernel<<<") &&
                             Contains("Invalid memory access (an unmapped address)") &&
                             Contains("emulator_kernels.cu:"));
  }
  CHECK(emulated::blocks_run_in_phases() > before);
  Buffer<float> out(100, "out");
  CHECK_NOTHROW(k::write_past_end(out.span(), 0));
  CHECK(download(out) == std::vector<float>(100, 1.0f));
}

TEST_CASE("threads waiting at different collectives are reported as a deadlock", "[emulator][emulator-only]") {
  Buffer<float> out(32, "out");
  try {
    k::divergent_collectives(out.span());
    FAIL("the deadlock was not reported");
  } catch (const CudaError& e) {
    CHECK_THAT(e.what(), Contains("deadlock") && Contains("divergent_kernel"));
  }
}

TEST_CASE("the emulated device reports a GPU's limits", "[emulator][emulator-only]") {
  const DeviceInfo& d = emulated::device();
  CHECK(d.available);
  CHECK_THAT(d.name, Contains("CPU emulation"));
  CHECK(d.max_threads_per_block == 1024);
  CHECK(d.warp_size == 32);
  CHECK(d.multiprocessors >= 1);
}
#endif
