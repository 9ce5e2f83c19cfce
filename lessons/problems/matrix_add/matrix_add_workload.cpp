// The matrix add: its workload, variants, counts, check and thread map (matrix_add_workload.hpp).
#include "problems/matrix_add/matrix_add_workload.hpp"

#include <fmt/format.h>

#include "common/array_runs.hpp"
#include "common/targets.hpp"
#include "matrix_add/matrix_add.hpp"
#include "problems/elementwise/elementwise_reference.hpp"

namespace gpulab {

namespace {

namespace ma = matrix_add;

// One float rounding per element, as in vector add (the problem's bound, the grader's too).
constexpr Tolerance kTolerance = elementwise::kAddTolerance;

using Span = std::span<const float>;
using MatrixFunction = void (*)(Span, Span, std::span<float>, std::size_t rows, std::size_t cols);
using MatrixLauncher = void (*)(Span, Span, std::span<float>, std::size_t rows, std::size_t cols, int threads);

RunFactory cpu(const char* name, MatrixFunction fn) {
  return cpu_array_run(name, kTolerance, [fn](const Inputs& in, std::span<float> out, const Launch& launch) {
    fn(in[0], in[1], out, launch.shape[0], launch.shape[1]);
  });
}

ArrayFunction matrix(MatrixLauncher f) {
  return [f](const Inputs& in, std::span<float> out, const Launch& launch) {
    f(in[0], in[1], out, launch.shape[0], launch.shape[1], launch.block);
  };
}

// Square matrices: n is the side.
Problem problem_of(std::int64_t n) { return {n, {{"rows", n}, {"cols", n}}}; }

Counts counts_of(const Problem& p) {
  const double elements = static_cast<double>(p.n) * static_cast<double>(p.n);
  return {elements, 12 * elements, 8 * elements, 4 * elements};
}

Footprint footprint_of(const Problem& p) {
  const double elements = static_cast<double>(p.n) * static_cast<double>(p.n);
  return {28 * elements, 12 * elements};  // as vector add, per element
}

std::unique_ptr<Instance> make_instance_of(const Problem& p, std::uint64_t seed) {
  const auto side = static_cast<std::size_t>(p.n);
  auto in = random_inputs("matrix_add", {"A", "B"}, side * side, seed, -1.0f, 1.0f);
  in->shape = {side, side};
  const auto& a = in->inputs[0];
  const auto& b = in->inputs[1];
  fill_expected(*in, [&](std::size_t i) { return elementwise::add(a[i], b[i]); });
  return in;
}

// The thread map of the coalesced launch, or of the transposed one: which thread took which element.
ThreadMap thread_map_of(std::int64_t n, int threads, Backend backend, const std::string& variant) {
  const bool transposed = variant == "transposed";
  const auto side = static_cast<std::size_t>(n);
  if (backend == Backend::cpu) throw std::invalid_argument("the thread map runs on the GPU or emulated");
  const std::size_t launched = ma::launched_threads(side, side, threads, transposed);
  const auto records = record_on<ma::ThreadRecord>(
      backend, launched, [&](auto span) { ma::record_threads(span, side, side, threads, transposed); });
  ThreadMap map;
  map.backend = backend;
  map.rows = map.cols = n;
  for (const auto& r : records) {
    map.threads.push_back({static_cast<int>(r.block_x), static_cast<int>(r.block_y), static_cast<int>(r.thread_x),
                           static_cast<int>(r.thread_y), static_cast<int>(r.warp), static_cast<int>(r.lane), r.row,
                           r.col, r.inside});
    map.grid_x = std::max(map.grid_x, static_cast<int>(r.block_x) + 1);
    map.grid_y = std::max(map.grid_y, static_cast<int>(r.block_y) + 1);
    map.block_x = std::max(map.block_x, static_cast<int>(r.thread_x) + 1);
    map.block_y = std::max(map.block_y, static_cast<int>(r.thread_y) + 1);
  }
  map.launch = fmt::format("<<<dim3({}, {}), dim3({}, {})>>>", map.grid_x, map.grid_y, map.block_x, map.block_y);
  map.mapping = transposed ? "transposed: row = blockIdx.x * blockDim.x + threadIdx.x, col from the y coordinates"
                           : "coalesced: col = blockIdx.x * blockDim.x + threadIdx.x, row from the y coordinates";
  return map;
}

}  // namespace

Lesson matrix_add_workload() {
  Lesson l;
  l.title = "Matrix add";
  l.summary = "C = A + B on a 2-D grid: dim3, rows and columns, and why the mapping of threads matters";
  l.sources = {"kernels/matrix_add/matrix_add.cu"};
  l.size_help = "rows = columns of the square matrices";
  l.default_n = 1024;
  l.max_n = 65535;
  for (int p = 5; p <= 14; ++p) l.sweep.push_back(std::int64_t{1} << p);  // 32 ... 16384
  // One element, sides under and over a warp's 32 and a block's width, and no multiple of either.
  l.test_sizes = {1, 31, 33, 100, 1000, 1025};
  l.problem = problem_of;
  l.counts = counts_of;
  l.footprint = footprint_of;
  l.make_instance = make_instance_of;
  l.thread_map = ThreadMapping{.record = thread_map_of, .max_n = 64, .variants = {"coalesced", "transposed"}};
  l.variants = {
      {"cpu_row_order",
       "One CPU thread, inner loop along a row (consecutive addresses)",
       {{Backend::cpu, cpu("cpu_row_order", ma::cpu_row_order)}}},
      {"cpu_column_order",
       "One CPU thread, inner loop down a column (a row apart)",
       {{Backend::cpu, cpu("cpu_column_order", ma::cpu_column_order)}}},
      {"cpu_threads",
       "Every CPU core (OpenMP), rows split, each in row order",
       {{Backend::cpu, cpu("cpu_threads", ma::cpu_threads)}}},
      {"coalesced", "2-D grid; consecutive threads take consecutive columns",
       kernel_backends("coalesced", kTolerance, matrix(matrix_add::coalesced))},
      {"coalesced_float4", "Coalesced, four neighbouring columns per thread with 16-byte accesses",
       kernel_backends("coalesced_float4", kTolerance, matrix(matrix_add::coalesced_float4))},
      {"transposed", "2-D grid turned around; consecutive threads take consecutive rows",
       kernel_backends("transposed", kTolerance, matrix(matrix_add::transposed))},
  };
  return l;
}

}  // namespace gpulab
