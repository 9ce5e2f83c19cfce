// How fast the emulator runs CUDA, against a one-thread CPU loop doing the same work (issue 44's
// targets): vector add of 2^22 floats (no barriers), a 16 × 16 tiled matrix multiply at n = 512
// and a shared-memory block reduction of 2^22 floats (barriers), each on the fast path (no
// checks; and before phases: every kernel on fibers) and in the checked mode (compute-sanitizer's
// four checks); and the same CPU loop as host code of a kernel file against plain C++. Prints a
// Markdown table for docs/benchmarks.md.
//   emulator_benchmark [reps] [only [fast]]   (only: the workloads whose name contains it; fast: no checked runs)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <stdexcept>
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
#include "run/cuda_build.hpp"
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
  double fast_ms = 0, fibers_ms = 0, checked_ms = 0;
  {
    UseLevel fast(Level::off);
    fast_ms = median_ms(reps, launch);
    // Before: the fast path with every kernel on fibers (no phases: execution/phases.hpp).
    gpulab::emulated::detail::phases_allowed = false;
    fibers_ms = median_ms(reps, launch);
    gpulab::emulated::detail::phases_allowed = true;
  }
  if (!fast_only) {
    UseLevel checked(Level::full);
    checked_ms = median_ms(reps, launch);
  }
  const double workers = gpulab::emulated::worker_count();
  const double ratio = fast_ms / loop_ms, checked_ratio = checked_ms / fast_ms;
  std::printf(
      "| %s | %.2f ms | %.2f ms (%.1f×) | %.2f ms | %.1f× (≤ %.1f×: %s) | %.1f× | %.1f ms | %.1f× (≤ 10×: %s) |\n",
      name, loop_ms, fibers_ms, fibers_ms / loop_ms, fast_ms, ratio, target, verdict(ratio, target), ratio * workers,
      checked_ms, checked_ratio, verdict(checked_ratio, 10));
}

// tests/benchmark_programs/host_multiply.cu built as gpulab_run builds it, with the extension
// `extension` (.cu: CUDA, on the emulator; .cpp: host code), its host code plain (two halves) or
// not (one instrumented piece, as before): the program.
std::filesystem::path learner_program(const char* extension, bool plain_host_code) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::temp_directory_path() / "gpulab-emulator-benchmark";
  fs::create_directories(folder);
  const fs::path source = folder / (std::string("host_multiply") + extension);
  fs::copy_file(GPULAB_HOST_MULTIPLY_CU, source, fs::copy_options::overwrite_existing);
  gpulab::build::Request request;
  request.sources = {source};
  request.cache = folder / "cache";
  request.plain_host_code = plain_host_code;
  const gpulab::build::Result built = gpulab::build::build_program(request);
  if (!built.ok) throw std::runtime_error("host_multiply" + std::string(extension) + " did not build:\n" + built.log);
  return built.program;
}

// The multiply's median as the program prints it.
double program_ms(const std::filesystem::path& program, int n, int reps) {
  std::string out;
  const std::string command =
      gpulab::build::shell_quote(program.string()) + " " + std::to_string(n) + " " + std::to_string(reps);
  if (gpulab::build::run_logged(command, out) != 0) throw std::runtime_error(command + " failed:\n" + out);
  double ms = 0;
  if (std::sscanf(out.c_str(), "multiply: %lf ms", &ms) != 1) throw std::runtime_error("unexpected output: " + out);
  return ms;
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
      "| workload | one-thread loop | fast path before: fibers only (÷ loop) | fast path | fast ÷ loop (target) | × %u "
      "workers (core-for-core) | checked | checked ÷ fast (target) |\n|---|---|---|---|---|---|---|---|\n",
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

  // Host code: the same multiply as plain C++ and in a kernel file's emulated build (GPU Lab's own:
  // one instrumented piece); then a learner's .cu as gpulab_run builds it (two halves) against the
  // same text as a .cpp.
  if (std::string("host code").find(only) == std::string::npos) return 0;
  const double plain_ms = median_ms(reps, [&] { multiply_on_cpu(ma.data(), mb.data(), mc.data(), m); });
  const double in_cu_ms = median_ms(reps, [&] { test_kernels::cpu_multiply_in_kernel_file(ma, mb, mc, m); });
  // The programs at n = 500: at 512 the loop's column walk (a row of 2 KB) meets the cache's sets
  // so that its time hangs on where the arrays land — two plain builds of the same code differ by
  // 30 % there. Each program run three times, by turns; the median of the three.
  const std::filesystem::path programs[3] = {learner_program(".cpp", true), learner_program(".cu", false),
                                             learner_program(".cu", true)};
  std::vector<double> runs[3];
  for (int round = 0; round < 3; ++round) {
    for (int p = 0; p < 3; ++p) runs[p].push_back(program_ms(programs[p], 500, reps));
  }
  const double program_cpp_ms = gpulab::summarize(runs[0]).median, one_piece_ms = gpulab::summarize(runs[1]).median,
               halves_ms = gpulab::summarize(runs[2]).median;
  std::printf(
      "\n| host code: a CPU multiply | plain C++ | in a .cu file, emulated build | ratio (target) |\n"
      "|---|---|---|---|\n| `multiply_on_cpu` (n = 512) in a kernel file of GPU Lab's (one instrumented piece) | "
      "%.1f ms | %.1f ms | %.2f× (≤ 1.2×: %s) |\n| a learner's `host_multiply.cu` (n = 500) built as gpulab_run "
      "builds it, against the same text as a .cpp: before, in one instrumented piece | %.1f ms | %.1f ms | %.2f× "
      "(≤ 1.2×: %s) |\n| the same: now, in two halves (its host code plain) | %.1f ms | %.1f ms | %.2f× (≤ 1.2×: "
      "%s) |\n",
      plain_ms, in_cu_ms, in_cu_ms / plain_ms, verdict(in_cu_ms / plain_ms, 1.2), program_cpp_ms, one_piece_ms,
      one_piece_ms / program_cpp_ms, verdict(one_piece_ms / program_cpp_ms, 1.2), program_cpp_ms, halves_ms,
      halves_ms / program_cpp_ms, verdict(halves_ms / program_cpp_ms, 1.2));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "emulator_benchmark: %s\n", e.what());
  return 1;
}
