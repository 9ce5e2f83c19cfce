// Lesson 05, matrix multiply: the workload, its variants, what it counts and how it is checked.
#include "common/lesson.hpp"

#include <cmath>
#include <functional>

#include "05_matmul/matmul_check.hpp"
#include "05_matmul/matmul_problem.hpp"
#include "05_matmul/product_run.hpp"
#include "common/random.hpp"
#include "common/targets.hpp"
#include "matmul/matmul.hpp"
#include "matmul/matmul_cublas.hpp"

namespace gpulab {

namespace {

namespace mm = matmul;

using Span = std::span<const float>;
// One variant's work, on host spans (CPU) or device spans (GPU, emulated).
using MatmulFunction = std::function<void(Span a, Span b, std::span<float> c, int m, int n, int k, int block)>;
// Theoretical occupancy at a block size and shape (warp_tiled picks its tiles from m and n).
using OccupancyFunction = std::function<double(int block, int m, int n)>;

std::string name_of(const std::string& variant, Backend backend) {
  return "matmul " + variant + " (" + std::string(to_string(backend)) + ")";
}

class CpuMatmulRun : public Run {
 public:
  CpuMatmulRun(const ProductInstance& in, std::string name, MatmulFunction fn)
      : in_(in), name_(std::move(name)), fn_(std::move(fn)), c_(static_cast<std::size_t>(in.m) * in.n) {}
  void poison() override { gpulab::poison(c_); }
  void compute() override { fn_(in_.a, in_.b, c_, in_.m, in_.n, in_.k, 0); }
  CheckResult check() const override { return check_product(c_, in_.reference, name_of(name_, Backend::cpu)); }

 private:
  const ProductInstance& in_;
  std::string name_;
  MatmulFunction fn_;
  std::vector<float> c_;
};

// ---- adapters from each function's own signature

using CpuFunction = void (*)(Span, Span, std::span<float>, int, int, int);
using BlockLauncher = void (*)(Span, Span, std::span<float>, int, int, int, int);
using FixedLauncher = void (*)(Span, Span, std::span<float>, int, int, int);

RunFactory cpu(const std::string& name, CpuFunction fn) {
  return factory<ProductInstance>([=](const ProductInstance& in, const RunOptions&) -> std::unique_ptr<Run> {
    return std::make_unique<CpuMatmulRun>(
        in, name, [fn](Span a, Span b, std::span<float> c, int m, int n, int k, int) { fn(a, b, c, m, n, k); });
  });
}

// A kernel (or cuBLAS) on one target (product_run.hpp). `threads`: the threads per block it
// launches (from the block size asked for).
template <typename Target>
RunFactory kernel_run(const std::string& name, MatmulFunction fn, std::function<int(int)> threads,
                      OccupancyFunction occupancy) {
  ProductFunctions<float> f;
  f.multiply = [fn](const float* a, const float* b, float* c, int m, int n, int k, int block) {
    const auto size = [](int rows, int cols) {
      return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
    };
    fn({a, size(m, k)}, {b, size(k, n)}, {c, size(m, n)}, m, n, k, block);
  };
  f.check = [](std::span<const float> c, const ProductInstance& in, const std::string& what) {
    return check_product(c, in.reference, what);
  };
  f.threads = std::move(threads);
  f.occupancy = std::move(occupancy);
  return factory<ProductInstance>([=](const ProductInstance& in, const RunOptions& options) -> std::unique_ptr<Run> {
    return std::make_unique<ProductRun<Target, float>>(in, name_of(name, Target::backend), f, options.block);
  });
}

MatmulFunction with_block(BlockLauncher f) {
  return [f](Span a, Span b, std::span<float> c, int m, int n, int k, int block) { f(a, b, c, m, n, k, block); };
}
MatmulFunction fixed(FixedLauncher f) {
  return [f](Span a, Span b, std::span<float> c, int m, int n, int k, int) { f(a, b, c, m, n, k); };
}

// A kernel variant on every device backend this build has, from one kernel source.
std::vector<std::pair<Backend, RunFactory>> kernel_backends(const std::string& name, const MatmulFunction& fn,
                                                            const std::function<int(int)>& threads,
                                                            const OccupancyFunction& occupancy) {
  return on_devices([&]<typename Target>() { return kernel_run<Target>(name, fn, threads, occupancy); });
}

// A kernel that takes the block size asked for, and one whose tiles fix its block (`threads`).
std::vector<std::pair<Backend, RunFactory>> block_kernel(const std::string& name, BlockLauncher launcher,
                                                         double (*occupancy)(int block)) {
  return kernel_backends(name, with_block(launcher), mm::naive_threads,
                         [occupancy](int block, int, int) { return occupancy(block); });
}
std::vector<std::pair<Backend, RunFactory>> fixed_kernel(const std::string& name, FixedLauncher launcher, int threads,
                                                         OccupancyFunction occupancy) {
  return kernel_backends(
      name, fixed(launcher), [threads](int) { return threads; }, std::move(occupancy));
}
OccupancyFunction fixed_occupancy(double (*occupancy)()) {
  return [occupancy](int, int, int) { return occupancy(); };
}

// cuBLAS: on the emulator it is skipped, saying why (matmul::cublas needs a GPU).
std::vector<std::pair<Backend, RunFactory>> cublas_backends() {
  return kernel_backends("cublas", fixed(mm::cublas), [](int) { return 0; }, {});
}

// ---- the lesson

Lesson make_lesson() {
  using namespace std::string_literals;
  Lesson l;
  l.id = "05";
  l.name = "matmul";
  l.title = "Matrix multiply";
  l.summary = "SGEMM from one thread per element to warp tiles and double buffering, against cuBLAS and OpenBLAS";
  l.text_file = "docs/lessons/05-matmul.md";
  l.sources = {"kernels/matmul/matmul.cu", "kernels/matmul"};
  l.size_help = "n for n × n matrices (m = n = k)";
  l.default_n = 1024;
  l.max_n = 16384;
  l.sweep = {64, 128, 256, 512, 1024, 2048, 4096, 8192};
  l.test_problems = product_test_problems();
  l.test_sizes = {1, 17, 127, 1000};
  l.problem = product_problem;
  l.counts = product_counts;
  l.footprint = product_footprint;
  l.make_instance = make_product_instance;
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
                    [](int, int m, int n) { return mm::warp_tiled_occupancy(m, n); }),
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
