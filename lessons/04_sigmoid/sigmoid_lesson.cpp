// Lesson 04, sigmoid: the workload, its variants, what it counts and how it is checked.
#include "common/lesson.hpp"

#include <cmath>
#include <limits>

#include "common/array_runs.hpp"
#include "common/random.hpp"
#include "problems/sigmoid/sigmoid_reference.hpp"
#include "sigmoid/sigmoid.hpp"

namespace gpulab {

namespace {

namespace sg = sigmoid;

// σ's bounds (problems/sigmoid: expf's and __expf's errors), the grader's too.
constexpr Tolerance kExact = sigmoid_problem::kTolerance;
constexpr Tolerance kFast = sigmoid_problem::kFastTolerance;

RunFactory cpu(const char* name, void (*fn)(std::span<const float>, std::span<float>)) {
  return cpu_array_run(name, kExact, [fn](const Inputs& in, std::span<float> out, const Launch&) { fn(in[0], out); });
}

std::unique_ptr<ArrayInstance> instance_of(std::vector<float> x) {
  auto in = std::make_unique<ArrayInstance>();
  in->topic = "sigmoid";
  in->input_names = {"x"};
  in->expected.resize(x.size());
  in->inputs.push_back(std::move(x));
  const auto& xs = in->inputs[0];
  fill_expected(*in, [&](std::size_t i) { return sigmoid_problem::sigmoid(xs[i]); });
  return in;
}

// Per element: read x, write y (8 bytes); negate, exp, add, divide (4 operations, exp as one).
Counts counts_of(const Problem& p) {
  const auto n = static_cast<double>(p.n);
  return {4 * n, 8 * n, 4 * n, 4 * n};
}

// The unfused version moves every element through memory three times.
Counts unfused_counts(const Problem& p) {
  Counts c = counts_of(p);
  c.bytes *= 3;
  return c;
}

Footprint footprint_of(const Problem& p) {
  const auto n = static_cast<double>(p.n);
  // Host: x (4), the float64 reference (8), the largest run's buffers (GPU: pinned x and y, 8).
  return {20 * n, 8 * n};
}

std::unique_ptr<Instance> make_instance_of(const Problem& p, std::uint64_t seed) {
  std::vector<float> x(static_cast<std::size_t>(p.n));
  fill_uniform(x, seed, 0, -20.0f, 20.0f);  // where σ goes from 2e-9 to 1 - 2e-9
  return instance_of(std::move(x));
}

// The edges of the arithmetic, which every variant must get right (sigmoid::edge_values()).
// Random inputs fill the rest, and 1031 elements leave a tail for the float4 kernel.
std::unique_ptr<Instance> edge_instance_of(std::uint64_t seed) {
  const std::vector<float> edges = sigmoid::edge_values();
  std::vector<float> x(1031);
  fill_uniform(x, seed, 0, -30.0f, 30.0f);
  for (std::size_t i = 0; i < edges.size(); ++i) {
    x[i * 61] = edges[i];  // spread over the blocks and warps, and into the float4 tail
  }
  x.back() = std::numeric_limits<float>::quiet_NaN();
  return instance_of(std::move(x));
}

Lesson make_lesson() {
  Lesson l;
  l.title = "Sigmoid";
  l.summary = "σ(x) with a __device__ function: expf against __expf, a stable form, and operator fusion";
  l.sources = {"kernels/sigmoid/sigmoid.cu"};
  l.size_help = "elements";
  use_array_sizes(l);
  l.counts = counts_of;
  l.footprint = footprint_of;
  l.make_instance = make_instance_of;
  l.edge_instance = edge_instance_of;
  l.variants = {
      {"cpu_loop", "One CPU thread, std::exp", {{Backend::cpu, cpu("cpu_loop", sg::cpu_loop)}}},
      {"cpu_threads", "Every CPU core (OpenMP)", {{Backend::cpu, cpu("cpu_threads", sg::cpu_threads)}}},
      {"fused", "One pass: a __device__ function with expf, one thread per element",
       kernel_backends("fused", kExact, unary(sigmoid::fused))},
      {"fused_fast", "One pass with the fast intrinsic __expf: fewer instructions, larger error",
       kernel_backends("fused_fast", kFast, unary(sigmoid::fused_fast))},
      {"fused_float4", "One pass, grid-stride with 16-byte float4 loads and stores",
       kernel_backends("fused_float4", kExact, unary(sigmoid::fused_float4))},
      {"unfused", "Three kernels (e^-x, 1 + y, 1 / y): three passes over memory",
       kernel_backends("unfused", kExact, unary(sigmoid::unfused)), unfused_counts},
  };
  return l;
}

}  // namespace

// Lesson 04: σ(x) = 1 / (1 + e^-x) with a __device__ function; expf against __expf; a form that
// is stable for every x; and operator fusion (one pass against three).
const Lesson& sigmoid_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
