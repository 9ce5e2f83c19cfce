// Lesson 05, matrix multiply: the workload, its variants, what it counts and how it is checked.
#include "common/lesson.hpp"

#include <cmath>
#include <functional>

#include "common/random.hpp"
#include "common/targets.hpp"
#include "matmul/matmul.hpp"
#include "matmul/matmul_cublas.hpp"
#include "problems/matmul/matmul_problem.hpp"

namespace gpulab {

namespace {

namespace mm = matmul;

using Span = std::span<const float>;
using FixedLauncher = void (*)(Span a, Span b, std::span<float> c, int m, int n, int k);
using BlockLauncher = void (*)(Span a, Span b, std::span<float> c, int m, int n, int k, int block);
using OccupancyOf = std::function<double(int block, const ArrayInstance&)>;

// ---- adapters from each function's own signature (A and B in, C out, the shape {m, n, k})

int dim(const Launch& launch, std::size_t i) { return static_cast<int>(launch.shape[i]); }

ArrayFunction fixed(FixedLauncher f) {
  return [f](const Inputs& in, std::span<float> c, const Launch& l) {
    f(in[0], in[1], c, dim(l, 0), dim(l, 1), dim(l, 2));
  };
}
ArrayFunction with_block(BlockLauncher f) {
  return [f](const Inputs& in, std::span<float> c, const Launch& l) {
    f(in[0], in[1], c, dim(l, 0), dim(l, 1), dim(l, 2), l.block);
  };
}

RunFactory cpu(const std::string& name, FixedLauncher fn) { return cpu_array_run(name, product_check(), fixed(fn)); }

// A kernel on every device backend this build has, from one kernel source: `threads` per block
// (from the block size asked for; 0: a library) and its theoretical occupancy.
std::vector<std::pair<Backend, RunFactory>> kernel(const std::string& name, const ArrayFunction& fn,
                                                   std::function<int(int)> threads, OccupancyOf occupancy) {
  return kernel_backends(name, product_check(), fn, KernelHooks{std::move(threads), std::move(occupancy)});
}

// A kernel that takes the block size asked for, and one whose tiles fix its block (`threads`).
std::vector<std::pair<Backend, RunFactory>> block_kernel(const std::string& name, BlockLauncher launcher,
                                                         double (*occupancy)(int block)) {
  return kernel(name, with_block(launcher), mm::naive_threads,
                [occupancy](int block, const ArrayInstance&) { return occupancy(block); });
}
std::vector<std::pair<Backend, RunFactory>> fixed_kernel(const std::string& name, FixedLauncher launcher, int threads,
                                                         OccupancyOf occupancy) {
  return kernel(
      name, fixed(launcher), [threads](int) { return threads; }, std::move(occupancy));
}
OccupancyOf fixed_occupancy(double (*occupancy)()) {
  return [occupancy](int, const ArrayInstance&) { return occupancy(); };
}

// cuBLAS: on the emulator it is skipped, saying why (matmul::cublas needs a GPU).
std::vector<std::pair<Backend, RunFactory>> cublas_backends() {
  return kernel("cublas", fixed(mm::cublas), [](int) { return 0; }, {});
}

// ---- the lesson

Lesson make_lesson() {
  using namespace std::string_literals;
  Lesson l;
  l.title = "Matrix multiply";
  l.summary =
      "SGEMM from one thread per element to warp tiles, double buffering and a cp.async pipeline, against cuBLAS "
      "and OpenBLAS";
  // The ladder's files in its order, then the rest of the folder.
  l.sources = {"kernels/matmul/naive.cu",       "kernels/matmul/coalesced.cu",   "kernels/matmul/shared_tiles.cu",
               "kernels/matmul/register_1d.cu", "kernels/matmul/register_2d.cu", "kernels/matmul/vectorised.cu",
               "kernels/matmul/warp_tiled.cu",  "kernels/matmul/pipelined.cu"};
  l.default_n = 1024;
  l.sweep = {64, 128, 256, 512, 1024, 2048, 4096, 8192};
  use_product_sizes(l, "matmul");
  l.test_problems.push_back(product_shape(256, 512, 80));  // whole tiles of pipelined: its build without edges
  l.test_sizes = {1, 17, 127, 1000};
  l.ladder_reference = "cublas";

  l.variants = {
      {"cpu_naive",
       "One CPU thread, the i-j-k loops: B read down its columns",
       {{Backend::cpu, cpu("cpu_naive", mm::cpu_naive)}}},
      {"cpu_ikj",
       "i-k-j loop order (rows of B, vectorised), every core",
       {{Backend::cpu, cpu("cpu_ikj", mm::cpu_ikj_threads)}}},
      {"cpu_blocked",
       "Cache blocking, packed panels, a register-tiled vector micro-kernel, every core",
       {{Backend::cpu, cpu("cpu_blocked", mm::cpu_blocked)}}},
      {"openblas", "OpenBLAS sgemm: the CPU library", {{Backend::cpu, cpu("openblas", mm::cpu_openblas)}}},
      {"naive", "One thread per element of C, threadIdx.x down a column: nothing coalesces",
       block_kernel("naive", mm::naive, mm::naive_occupancy)},
      {"coalesced", "One thread per element of C, threadIdx.x along a row: loads and stores coalesce",
       block_kernel("coalesced", mm::coalesced, mm::coalesced_occupancy)},
      {"shared_tiles",
       "32 × 32 tiles of A and B in shared memory, each value read 32 times there",
       fixed_kernel("shared_tiles", mm::shared_tiles, 1024, fixed_occupancy(mm::shared_tiles_occupancy)),
       {},
       true},
      {"register_1d",
       "64 × 64 tiles, 8 results per thread down a column (1-D register blocking)",
       fixed_kernel("register_1d", mm::register_1d, 512, fixed_occupancy(mm::register_1d_occupancy)),
       {},
       true},
      {"register_2d",
       "128 × 128 tiles, an 8 × 8 block per thread (2-D register blocking)",
       fixed_kernel("register_2d", mm::register_2d, 256, fixed_occupancy(mm::register_2d_occupancy)),
       {},
       true},
      {"vectorised",
       "register_2d with float4 loads and A transposed in shared memory",
       fixed_kernel("vectorised", mm::vectorised, 256, fixed_occupancy(mm::vectorised_occupancy)),
       {},
       true},
      {"warp_tiled",
       "Warp-shaped tiles without bank conflicts, 16 × 8 per thread, double-buffered shared memory",
       fixed_kernel("warp_tiled", mm::warp_tiled, 256,
                    [](int, const ArrayInstance& in) {
                      return mm::warp_tiled_occupancy(static_cast<int>(in.shape[0]), static_cast<int>(in.shape[1]));
                    }),
       {},
       true},
      {"pipelined",
       "warp_tiled's large tiles, four k-steps in shared memory, B fed by asynchronous copies (cp.async)",
       fixed_kernel("pipelined", mm::pipelined, 256, fixed_occupancy(mm::pipelined_occupancy)),
       {},
       true},
      {"cublas", "cuBLAS SGEMM, FP32 math (no tensor cores): the GPU library", cublas_backends(), {}, true},
  };
  l.variants.back().fixed_block = true;
  // The naive loops take seconds at n = 1024 and hours at 8192.
  l.variants.front().skips.push_back(slow_past(1024));
  skip_in_every_variant(l, emulated_past(1024));  // ~10^9 multiply-adds: seconds emulated; more would take minutes
  return l;
}

}  // namespace

// Lesson 05: C = A · B in FP32, from one thread per element to register-tiled, warp-tiled,
// double-buffered kernels; cuBLAS on the GPU and OpenBLAS on the CPU as the libraries to beat.
const Lesson& matmul_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
