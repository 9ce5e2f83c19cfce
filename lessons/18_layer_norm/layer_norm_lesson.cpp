// Lesson 18, layer norm over rows: the workload, its variants, what it counts and how it is checked.
#include "common/lesson.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "common/array_runs.hpp"
#include "common/random.hpp"
#include "common/row_problems.hpp"
#include "transformer/layer_norm.hpp"

namespace gpulab {

namespace {

namespace tf = transformer;

using RowsLauncher = void (*)(tf::LayerNormInputs, std::span<float>, std::size_t rows, std::size_t cols);

// The data, the float64 reference, and a bound a row (row_tolerance).
struct LayerNormInstance : ArrayInstance {
  std::vector<Tolerance> row_tolerance;
};

// The bound follows the arithmetic. A float sum of n terms is off by at most (n − 1)·2^-24 of the
// sum of their magnitudes (one thread adding them in a row: the CPU loop; the other rungs add far
// fewer in a row), so the mean is off by up to n·u·mean|x|, which the output sees multiplied by
// the scale 1/σ: an absolute error n·u·K·|γ| with K = mean|x| / σ, the row's condition — large
// when the mean is large against the spread. The variance's own error (relative, n·u) moves
// each output by that share of γ(x − μ)/σ, which is at most |y| + |β|. rsqrtf, the products and
// the additions add a few roundings (the + 8).
Tolerance row_bound(std::span<const float> x, double variance, double gamma_max, double beta_max) {
  constexpr double u = 0x1p-24;
  double magnitude = 0;
  for (const float v : x) magnitude += std::abs(static_cast<double>(v));
  const double n = static_cast<double>(x.size());
  const double condition = magnitude / n / std::sqrt(variance + tf::kLayerNormEpsilon);
  return {(n + 8) * u, (n + 8) * u * (condition * gamma_max + beta_max) + 1e-30};
}

// The float64 layer norm of every row, and each row's bound.
void fill_layer_norm(LayerNormInstance& in) {
  const std::size_t rows = in.shape[0], cols = in.shape[1];
  const auto &x = in.inputs[0], &gamma = in.inputs[1], &beta = in.inputs[2];
  const auto largest = [](const std::vector<float>& v) {
    double m = 0;
    for (const float e : v) m = std::max(m, std::abs(static_cast<double>(e)));
    return m;
  };
  const double gamma_max = largest(gamma), beta_max = largest(beta);
  in.expected.assign(rows * cols, 0.0);
  in.row_tolerance.resize(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    const std::span<const float> row(x.data() + r * cols, cols);
    double mean = 0;
    for (const float v : row) mean += v;
    mean /= static_cast<double>(cols);
    double variance = 0;
    for (const float v : row) variance += (v - mean) * (v - mean);
    variance /= static_cast<double>(cols);
    const double scale = 1.0 / std::sqrt(variance + tf::kLayerNormEpsilon);
    for (std::size_t c = 0; c < cols; ++c) in.expected[r * cols + c] = (row[c] - mean) * scale * gamma[c] + beta[c];
    in.row_tolerance[r] = row_bound(row, variance, gamma_max, beta_max);
  }
}

const ArrayCheck kCheck =
    check_with<LayerNormInstance>([](std::span<const float> y, const LayerNormInstance& in, const std::string& what) {
      return compare_rows(y, in.expected, in.row_tolerance, std::max<std::size_t>(in.shape[1], 1), what);
    });

ArrayFunction rows_of(RowsLauncher f) {
  return [f](const Inputs& in, std::span<float> out, const Launch& launch) {
    f({in[0], in[1], in[2]}, out, launch.shape[0], launch.shape[1]);
  };
}

std::unique_ptr<ArrayInstance> instance_of(std::vector<float> x, std::size_t rows, std::size_t cols,
                                           std::uint64_t seed) {
  auto in = std::make_unique<LayerNormInstance>();
  in->topic = "layer_norm";
  in->input_names = {"x", "gamma", "beta"};
  in->output_name = "y";
  in->shape = {rows, cols};
  std::vector<float> gamma(cols), beta(cols);
  fill_uniform(gamma, seed, 1, 0.5f, 1.5f);
  fill_uniform(beta, seed, 2, -0.5f, 0.5f);
  in->inputs = {std::move(x), std::move(gamma), std::move(beta)};
  fill_layer_norm(*in);
  return in;
}

// Per element at the least: read x, write y (8 bytes), and γ and β once (8 bytes a column); the
// mean's add, the variance's subtract, multiply and add, the output's subtract, multiply and
// multiply-add (7 operations).
Counts counts_of(const Problem& p) {
  const double n = elements_in(p), cols = static_cast<double>(cols_in(p));
  return {7 * n, 8 * n + 8 * cols, 4 * n + 8 * cols, 4 * n};
}

Footprint footprint_of(const Problem& p) {
  const double n = elements_in(p);
  return {24 * n, 8 * n};  // x, y, their pinned copies, the float64 reference
}

// Rows as a network's activations are: each its own mean (−16 to 16) and spread (0.1 to 2), so
// some rows have a mean a hundred times their spread — where σ² = E[x²] − μ² fails.
std::unique_ptr<Instance> make_instance_of(const Problem& p, std::uint64_t seed) {
  const std::size_t rows = rows_in(p), cols = cols_in(p);
  std::vector<float> x(rows * cols), mean(rows), spread(rows);
  fill_uniform(x, seed, 0, -1.0f, 1.0f);
  fill_uniform(mean, seed, 3, -16.0f, 16.0f);
  fill_uniform(spread, seed, 4, 0.1f, 2.0f);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) x[r * cols + c] = mean[r] + spread[r] * x[r * cols + c];
  }
  return instance_of(std::move(x), rows, cols, seed);
}

// The edges: a mean of 10^4 with a spread of 1 (σ² = E[x²] − μ² gives nonsense or NaN), a
// constant row (σ = 0: every output is β), a spread far below √ε (ε decides), a spread of 10^3,
// one outlier of 10^4 among values of ±1 (as some channels of a large model), and a plain row.
// 132 columns: a multiple of 4, so the float4 rung's path is the one tested.
std::unique_ptr<Instance> edge_instance_of(std::uint64_t seed) {
  constexpr std::size_t rows = 6, cols = 132;
  std::vector<float> x(rows * cols);
  fill_uniform(x, seed, 0, -1.0f, 1.0f);
  auto row = [&](std::size_t r) { return std::span<float>(x).subspan(r * cols, cols); };
  for (float& v : row(0)) v += 1e4f;
  for (float& v : row(1)) v = 3.5f;
  for (float& v : row(2)) v *= 1e-20f;
  for (float& v : row(3)) v *= 1e3f;
  row(4)[17] = 1e4f;
  return instance_of(std::move(x), rows, cols, seed);
}

RunFactory cpu(const char* name, RowsLauncher f) { return cpu_array_run(name, kCheck, rows_of(f)); }

Lesson make_lesson() {
  Lesson l;
  l.title = "Layer norm";
  l.summary =
      "Layer norm over rows: two passes, the E[x²] − μ² trap, Welford's one pass by a warp, the row in registers";
  l.sources = {"kernels/transformer/layer_norm.cu"};
  use_row_problems(l);
  l.default_n = 4096;
  l.max_n = std::int64_t{1} << 20;
  l.sweep = {32, 128, 512, 2048, 8192, 32768};
  // Empty, a row of one (σ = 0), under and over a warp and a block, rows of no multiple of 4,
  // longer than the registers rung holds (32768 floats), many short rows.
  l.test_problems = {rows_problem(0, 5),     rows_problem(3, 0),    rows_problem(1, 1),     rows_problem(5, 1),
                     rows_problem(31, 31),   rows_problem(7, 129),  rows_problem(33, 2048), rows_problem(2, 4097),
                     rows_problem(3, 40000), rows_problem(1000, 17)};
  l.counts = counts_of;
  l.footprint = footprint_of;
  l.make_instance = make_instance_of;
  l.edge_instance = edge_instance_of;
  l.variants = {
      {"cpu_rows",
       "One CPU thread, a row at a time: the mean, the variance around it, the outputs",
       {{Backend::cpu, cpu("cpu_rows", tf::layer_norm_cpu_rows)}}},
      {"two_pass",
       "A block per row, three reads: the mean, the variance around it, the outputs",
       kernel_backends("two_pass", kCheck, rows_of(tf::layer_norm_two_pass)),
       {},
       true},
      {"sum_of_squares",
       "Deliberately wrong: Σx and Σx² in one pass, σ² = E[x²] − μ², which cancels at a large mean",
       kernel_backends("sum_of_squares", kCheck, rows_of(tf::layer_norm_sum_of_squares)),
       {},
       true,
       {},
       true},
      {"welford_warp",
       "A warp per row: the mean and variance in one pass (Welford), the lanes' combined by shuffles",
       kernel_backends("welford_warp", kCheck, rows_of(tf::layer_norm_welford_warp)),
       {},
       true},
      {"row_in_registers",
       "The row read once into registers (float4s, single floats at its ends), the two exact passes over them",
       kernel_backends("row_in_registers", kCheck, rows_of(tf::layer_norm_registers)),
       {},
       true},
  };
  return l;
}

}  // namespace

// Lesson 18, layer norm over rows: from three reads to one, and why not E[x²] − μ².
const Lesson& layer_norm_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
