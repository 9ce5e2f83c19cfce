// How fast the emulator runs CUDA, against a one-thread CPU loop doing the same work: vector add
// of 2^22 floats (no barriers), a 16 × 16 tiled matrix multiply at n = 512 and a shared-memory
// block reduction of 2^22 floats (barriers). The numbers docs/benchmarks.md records; the targets
// are within 10× of the loop without barriers and 30× with them.
//   emulator_benchmark [reps]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "common/backend.hpp"
#include "common/random.hpp"
#include "common/stats.hpp"
#include "emulator/device.hpp"
#include "emulator/memory.hpp"
#include "kernels/emulator_kernels.hpp"
#include "vector_add/vector_add.hpp"

namespace {

double median_ms(int reps, const std::function<void()>& work) {
  work();  // warm-up: fiber stacks, pages, caches
  std::vector<double> ms;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    work();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  return gpulab::summarize(ms).median;
}

void report(const char* name, double loop_ms, double emulated_ms, double target) {
  const double ratio = emulated_ms / loop_ms;
  std::printf("%-34s one-thread loop %9.2f ms   emulated %9.2f ms   %6.1fx  (target %2.0fx: %s)\n", name, loop_ms,
              emulated_ms, ratio, target, ratio <= target ? "met" : "MISSED");
}

}  // namespace

int main(int argc, char** argv) try {
  using namespace gpulab;
  const int reps = argc > 1 ? std::atoi(argv[1]) : 5;
  if (reps < 1) {
    std::fprintf(stderr, "usage: emulator_benchmark [reps >= 1]\n");
    return 2;
  }
  std::printf("emulator: %s\n", emulated::device().name.c_str());

  // Vector add, 2^22 floats: one thread per element, no barriers.
  const std::size_t n = std::size_t{1} << 22;
  std::vector<float> a(n), b(n), c(n);
  fill_uniform(a, 1, 0, -1, 1);
  fill_uniform(b, 1, 1, -1, 1);
  emulated::DeviceBuffer<float> da(n, "a"), db(n, "b"), dc(n, "c");
  da.copy_from(a);
  db.copy_from(b);
  volatile float sink = 0;
  const double add_loop = median_ms(reps, [&] {
    for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    sink = c[n / 2];
  });
  UseDevice on_emulator(Backend::emulated);
  const double add_emulated = median_ms(reps, [&] { vector_add::blocks(da.span(), db.span(), dc.span(), 256); });
  report("vector add, 2^22 (no barriers)", add_loop, add_emulated, 10);

  // Tiled matrix multiply, n = 512: two barriers per 16-wide step of k.
  const int m = 512;
  const auto size = static_cast<std::size_t>(m) * m;
  std::vector<float> ma(size), mb(size), mc(size);
  fill_uniform(ma, 2, 0, -1, 1);
  fill_uniform(mb, 2, 1, -1, 1);
  emulated::DeviceBuffer<float> dma(size, "a"), dmb(size, "b"), dmc(size, "c");
  dma.copy_from(ma);
  dmb.copy_from(mb);
  const double mm_loop = median_ms(reps, [&] {
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < m; ++j) {
        float sum = 0;
        for (int k = 0; k < m; ++k)
          sum += ma[static_cast<std::size_t>(i) * m + k] * mb[static_cast<std::size_t>(k) * m + j];
        mc[static_cast<std::size_t>(i) * m + j] = sum;
      }
    }
    sink = mc[size / 2];
  });
  const double mm_emulated =
      median_ms(reps, [&] { test_kernels::tiled_matmul(dma.span(), dmb.span(), dmc.span(), m); });
  report("tiled matmul, n = 512 (barriers)", mm_loop, mm_emulated, 30);

  // Shared-memory tree reduction of each 256-element block, 2^22 floats: 9 barriers a thread.
  const int block = 256;
  std::vector<float> sums(n / block);
  emulated::DeviceBuffer<float> dsums(n / block, "sums");
  const double sum_loop = median_ms(reps, [&] {
    for (std::size_t blk = 0; blk < n / block; ++blk) {
      float s = 0;
      for (int t = 0; t < block; ++t) s += a[blk * block + static_cast<std::size_t>(t)];
      sums[blk] = s;
    }
    sink = sums[0];
  });
  const double sum_emulated = median_ms(reps, [&] { test_kernels::block_sums(da.span(), dsums.span(), block); });
  report("block reduction, 2^22 (barriers)", sum_loop, sum_emulated, 30);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "emulator_benchmark: %s\n", e.what());
  return 1;
}
