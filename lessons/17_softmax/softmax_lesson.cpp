// Lesson 17, the first of a transformer's kernels: softmax over rows. The workload, its
// variants, what it counts and how it is checked.
#include "common/lesson.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/array_runs.hpp"
#include "common/random.hpp"
#include "common/row_problems.hpp"
#include "problems/softmax/softmax_reference.hpp"
#include "transformer/softmax.hpp"

namespace gpulab {

namespace {

namespace at = transformer;

using RowsLauncher = void (*)(std::span<const float>, std::span<float>, std::size_t rows, std::size_t cols);

// The problem's bound (problems/softmax, the grader's too): expf's error and a float sum of up to
// `cols` terms (the CPU loop and thread_row add them all in a row; the other rungs far fewer).
Tolerance tolerance_of(const ArrayInstance& in, int /*block*/) {
  return softmax_problem::tolerance(in.shape.size() == 2 ? in.shape[1] : 1);
}

ArrayFunction rows_of(RowsLauncher f) {
  return [f](const Inputs& in, std::span<float> out, const Launch& launch) {
    f(in[0], out, launch.shape[0], launch.shape[1]);
  };
}

RunFactory cpu(const char* name, RowsLauncher f) { return cpu_array_run(name, ArrayCheck(tolerance_of), rows_of(f)); }

std::unique_ptr<ArrayInstance> instance_of(std::vector<float> x, std::size_t rows, std::size_t cols) {
  auto in = std::make_unique<ArrayInstance>();
  in->topic = "softmax";
  in->input_names = {"x"};
  in->output_name = "y";
  in->shape = {rows, cols};
  in->inputs.push_back(std::move(x));
  in->expected.resize(rows * cols);
  softmax_problem::softmax_rows(std::span<const float>(in->inputs[0]), rows, cols, std::span<double>(in->expected));
  return in;
}

// Per element at the least: read x, write y (8 bytes); a subtraction, an exponential, a
// multiply, a comparison and an add (5 operations, the exponential as one).
Counts counts_of(const Problem& p) {
  const double n = elements_in(p);
  return {5 * n, 8 * n, 4 * n, 4 * n};
}

Footprint footprint_of(const Problem& p) {
  const double n = elements_in(p);
  return {24 * n, 8 * n};  // x, y, their pinned copies, the float64 reference
}

std::unique_ptr<Instance> make_instance_of(const Problem& p, std::uint64_t seed) {
  const std::size_t rows = rows_in(p), cols = cols_in(p);
  std::vector<float> x(rows * cols);
  fill_uniform(x, seed, 0, -8.0f, 8.0f);  // logits as a network's: e^16 between the largest and smallest
  return instance_of(std::move(x), rows, cols);
}

// The edges PyTorch's softmax gets right and a careless kernel does not: logits of ±1e4 (e^1e4
// overflows without the maximum subtracted), a row of −inf (NaN), −inf among finite logits (0),
// a row of equal logits, one logit far above the rest (one-hot), and random rows. 132 columns:
// a multiple of 4, so the float4 rung's path is the one tested.
std::unique_ptr<Instance> edge_instance_of(std::uint64_t seed) {
  constexpr std::size_t rows = 7, cols = 132;
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x(rows * cols);
  fill_uniform(x, seed, 0, -3.0f, 3.0f);
  auto row = [&](std::size_t r) { return std::span<float>(x).subspan(r * cols, cols); };
  for (float& v : row(0)) v *= 1e4f / 3;                       // ±1e4
  for (float& v : row(1)) v = -inf;                            // NaN throughout
  for (std::size_t c = 0; c < cols; c += 3) row(2)[c] = -inf;  // zeros among the rest
  for (float& v : row(3)) v = 1e4f;                            // 1 / cols each
  for (float& v : row(4)) v = -1e4f;
  row(4)[77] = 1e4f;                     // one-hot
  row(5)[0] = 88.0f, row(5)[1] = 89.0f;  // e^89 overflows a float
  return instance_of(std::move(x), rows, cols);
}

Lesson make_lesson() {
  Lesson l;
  l.title = "Softmax over rows";
  l.summary =
      "Softmax over rows: a thread, a block, a warp a row; the online softmax in one pass; float4; the row in "
      "registers";
  l.sources = {"kernels/transformer/softmax.cu"};
  l.default_n = 4096;
  l.max_n = std::int64_t{1} << 20;
  l.sweep = {32, 128, 512, 2048, 8192, 32768};
  // Empty, a row of one, under and over a warp and a block, rows of no multiple of 4 and of one,
  // longer than the float4 rung's registers hold (32768 floats), many short rows.
  l.test_problems = {rows_problem(0, 5),     rows_problem(3, 0),    rows_problem(1, 1),     rows_problem(5, 1),
                     rows_problem(31, 31),   rows_problem(7, 129),  rows_problem(33, 2048), rows_problem(2, 4097),
                     rows_problem(3, 40000), rows_problem(1000, 17)};
  use_row_problems(l);
  l.shape_help = "ROWSxCOLS, e.g. 4096x32768";
  l.counts = counts_of;
  l.footprint = footprint_of;
  l.make_instance = make_instance_of;
  l.edge_instance = edge_instance_of;
  const ArrayCheck check(tolerance_of);
  l.variants = {
      {"cpu_rows",
       "One CPU thread, a row at a time: the maximum, the sum, the outputs",
       {{Backend::cpu, cpu("cpu_rows", at::softmax_cpu_rows)}}},
      {"thread_row",
       "A thread per row, three passes: a warp's loads 32 rows apart",
       kernel_backends("thread_row", check, rows_of(at::softmax_thread_row)),
       {},
       true},
      {"block_row",
       "A block per row: coalesced passes, the reductions through shared memory",
       kernel_backends("block_row", check, rows_of(at::softmax_block_row)),
       {},
       true},
      {"warp_row",
       "A warp per row: the reductions by shuffles, no barrier",
       kernel_backends("warp_row", check, rows_of(at::softmax_warp_row)),
       {},
       true},
      {"online",
       "A block per row, the maximum and the sum in one pass: the row read twice, not three times",
       kernel_backends("online", check, rows_of(at::softmax_online)),
       {},
       true},
      {"online_float4",
       "online with float4 accesses: a quarter of the memory instructions, the second read from L2",
       kernel_backends("online_float4", check, rows_of(at::softmax_online_float4)),
       {},
       true},
      {"row_in_registers",
       "The row read once into registers (float4s, single floats at its ends), then one exponential an element",
       kernel_backends("row_in_registers", check, rows_of(at::softmax_registers)),
       {},
       true},
  };
  return l;
}

}  // namespace

// Lesson 17, softmax over rows: from a thread per row to the online softmax read once.
const Lesson& softmax_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
