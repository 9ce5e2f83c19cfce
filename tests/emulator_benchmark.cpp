// How fast the emulator runs CUDA, against a one-thread CPU loop doing the same work (issue 44's
// targets): vector add of 2^22 floats (no barriers), a 16 × 16 tiled matrix multiply at n = 512
// and a shared-memory block reduction of 2^22 floats (barriers), each on the fast path (no
// checks) and in the checked mode (compute-sanitizer's four checks); and the same CPU loop as host
// code of a kernel file against plain C++. Prints a Markdown table for docs/benchmarks.md.
//   emulator_benchmark [reps] [only [fast]]   (only: the workloads whose name contains it; fast: no checked runs)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "common/random.hpp"
#include "common/stats.hpp"
#include "emulator/execution/scheduler.hpp"
#include "emulator/observers/checker.hpp"
#include "emulator/runtime/device.hpp"
#include "emulator/runtime/memory.hpp"
#include "kernels/cpu_multiply.hpp"
#include "kernels/emulator_kernels.hpp"
#include "vector_add/vector_add.hpp"

namespace {

using gpulab::emulated::check::Level;
using gpulab::emulated::check::UseLevel;

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

const char* verdict(double ratio, double target) { return ratio <= target ? "met" : "**missed**"; }

std::string only;        // the second argument
bool fast_only = false;  // a third argument "fast": the fast path alone (for a profiler)

// One kernel: the loop, then the launch on the fast path and checked.
void row(const char* name, int reps, double target, const std::function<void()>& loop,
         const std::function<void()>& launch) {
  if (std::string(name).find(only) == std::string::npos) return;
  const double loop_ms = median_ms(reps, loop);
  double fast_ms = 0, checked_ms = 0;
  {
    UseLevel fast(Level::off);
    fast_ms = median_ms(reps, launch);
  }
  if (!fast_only) {
    UseLevel checked(Level::full);
    checked_ms = median_ms(reps, launch);
  }
  const double workers = gpulab::emulated::worker_count();
  const double ratio = fast_ms / loop_ms, checked_ratio = checked_ms / fast_ms;
  std::printf("| %s | %.2f ms | %.2f ms | %.1f× (≤ %.1f×: %s) | %.1f× | %.1f ms | %.1f× (≤ 10×: %s) |\n", name, loop_ms,
              fast_ms, ratio, target, verdict(ratio, target), ratio * workers, checked_ms, checked_ratio,
              verdict(checked_ratio, 10));
}

}  // namespace

int main(int argc, char** argv) try {
  using namespace gpulab;
  const int reps = argc > 1 ? std::atoi(argv[1]) : 5;
  if (reps < 1) {
    std::fprintf(stderr, "usage: emulator_benchmark [reps >= 1]\n");
    return 2;
  }
  if (argc > 2) only = argv[2];
  fast_only = argc > 3 && std::string(argv[3]) == "fast";
  const unsigned workers = emulated::worker_count();
  std::printf("emulator: %s; medians of %d runs after a warm-up\n\n", emulated::device().name.c_str(), reps);
  std::printf(
      "| workload | one-thread loop | fast path | fast ÷ loop (target) | × %u workers (core-for-core) | checked | "
      "checked ÷ fast (target) |\n|---|---|---|---|---|---|---|\n",
      workers);
  UseDevice on_emulator(Backend::emulated);
  volatile float sink = 0;

  // Vector add, 2^22 floats: one thread per element, no barriers.
  const std::size_t n = std::size_t{1} << 22;
  std::vector<float> a(n), b(n), c(n);
  fill_uniform(a, 1, 0, -1, 1);
  fill_uniform(b, 1, 1, -1, 1);
  emulated::DeviceBuffer<float> da(n, "a"), db(n, "b"), dc(n, "c");
  da.copy_from(a);
  db.copy_from(b);
  row(
      "vector add, 2^22 floats (no barriers)", reps, 1.5,
      [&] {
        for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
        sink = c[n / 2];
      },
      [&] { vector_add::blocks(da.span(), db.span(), dc.span(), 256); });

  // Tiled matrix multiply, n = 512: two barriers per 16-wide step of k.
  const int m = 512;
  const auto size = static_cast<std::size_t>(m) * m;
  std::vector<float> ma(size), mb(size), mc(size);
  fill_uniform(ma, 2, 0, -1, 1);
  fill_uniform(mb, 2, 1, -1, 1);
  emulated::DeviceBuffer<float> dma(size, "a"), dmb(size, "b"), dmc(size, "c");
  dma.copy_from(ma);
  dmb.copy_from(mb);
  row(
      "tiled matrix multiply, n = 512, 16 × 16 tiles (2 barriers a step)", reps, 3,
      [&] {
        multiply_on_cpu(ma.data(), mb.data(), mc.data(), m);
        sink = mc[size / 2];
      },
      [&] { test_kernels::tiled_matmul(dma.span(), dmb.span(), dmc.span(), m); });

  // Shared-memory tree reduction of each 256-element block, 2^22 floats: 9 barriers a thread.
  const int block = 256;
  std::vector<float> sums(n / block);
  emulated::DeviceBuffer<float> dsums(n / block, "sums");
  row(
      "shared-memory tree reduction, 2^22 floats, 256 a block (9 barriers)", reps, 5,
      [&] {
        for (std::size_t blk = 0; blk < n / block; ++blk) {
          float s = 0;
          for (int t = 0; t < block; ++t) s += a[blk * block + static_cast<std::size_t>(t)];
          sums[blk] = s;
        }
        sink = sums[0];
      },
      [&] { test_kernels::block_sums(da.span(), dsums.span(), block); });

  // Host code: the same multiply as plain C++ and in a kernel file's emulated build.
  if (std::string("host code").find(only) == std::string::npos) return 0;
  const double plain_ms = median_ms(reps, [&] { multiply_on_cpu(ma.data(), mb.data(), mc.data(), m); });
  const double in_cu_ms = median_ms(reps, [&] { test_kernels::cpu_multiply_in_kernel_file(ma, mb, mc, m); });
  std::printf(
      "\n| host code: a CPU multiply, n = 512 | plain C++ | in a .cu file, emulated build | ratio (target) |\n"
      "|---|---|---|---|\n| `multiply_on_cpu` | %.1f ms | %.1f ms | %.2f× (≤ 1.2×: %s) |\n",
      plain_ms, in_cu_ms, in_cu_ms / plain_ms, verdict(in_cu_ms / plain_ms, 1.2));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "emulator_benchmark: %s\n", e.what());
  return 1;
}
