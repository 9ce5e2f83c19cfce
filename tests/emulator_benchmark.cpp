// How fast the emulator runs a tiled shared-memory matrix multiply (16 x 16 tiles, two barriers
// per tile step): the number docs/benchmarks.md records. Usage: emulator_benchmark [n] [reps]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common/random.hpp"
#include "common/stats.hpp"
#include "emulator/device.hpp"
#include "emulator/memory.hpp"
#include "kernels/emulator_kernels.hpp"

int main(int argc, char** argv) try {
  using namespace gpulab;
  const int n = argc > 1 ? std::atoi(argv[1]) : 128;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  if (n < 1 || reps < 1) {
    std::fprintf(stderr, "usage: emulator_benchmark [n >= 1] [reps >= 1]\n");
    return 2;
  }
  const auto size = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  std::vector<float> a(size), b(size);
  fill_uniform(a, 1, 0, -1, 1);
  fill_uniform(b, 1, 1, -1, 1);
  emulated::DeviceBuffer<float> da(size, "a"), db(size, "b"), dc(size, "c");
  da.copy_from(a);
  db.copy_from(b);
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    emulated::test_kernels::tiled_matmul(da.span(), db.span(), dc.span(), n);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  const Stats s = summarize(ms);
  const double threads = double(size) * 1.0;
  std::printf(
      "emulated tiled matmul, n = %d, 16x16 tiles, %s: median %.1f ms (min %.1f, max %.1f) over %d runs; "
      "%.0f CUDA threads, %.2f us per thread\n",
      n, emulated::device().name.c_str(), s.median, s.min, s.max, reps, threads, s.median * 1e3 / threads);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "emulator_benchmark: %s\n", e.what());
  return 1;
}
