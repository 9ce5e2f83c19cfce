#include "problems/matmul/matmul_problem.hpp"

#include <algorithm>
#include <cmath>

#include "common/random.hpp"

namespace gpulab {

Problem product_problem(std::int64_t n) { return {n, {{"m", n}, {"n", n}, {"k", n}}}; }

Problem product_shape(std::int64_t m, std::int64_t n, std::int64_t k) {
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  return {std::max<std::int64_t>(1, std::llround(std::cbrt(work))), {{"m", m}, {"n", n}, {"k", k}}};
}

int product_dim(const Problem& p, const char* name) { return static_cast<int>(p.dim(name, p.n)); }

std::vector<Problem> product_test_problems() {
  return {product_shape(1, 1, 1),          product_shape(17, 33, 9),    product_shape(127, 129, 65),
          product_shape(1000, 1000, 1000), product_shape(2053, 7, 300), product_shape(0, 5, 3),
          product_shape(4, 6, 0)};
}

Counts product_counts(const Problem& p) {
  const double m = product_dim(p, "m"), n = product_dim(p, "n"), k = product_dim(p, "k");
  return {2 * m * n * k, 4 * (m * k + k * n + m * n), 4 * (m * k + k * n), 4 * m * n};
}

Footprint product_footprint(const Problem& p) {
  const double m = product_dim(p, "m"), n = product_dim(p, "n"), k = product_dim(p, "k");
  const double floats = m * k + k * n + m * n;
  // Host: A and B, their pinned copies and C's; the reference: float64 copies of A and B, and
  // every element with its bound (small sizes), or 64 rows and 64 columns of them (large sizes).
  const bool full = m * n * k <= kFullCheckWork;
  const double reference = full ? 16 * (m * k + k * n) + 40 * m * n : 24 * 64 * (m + n) + 8 * (m + n + 4 * k);
  return {4 * (m * k + k * n) + 4 * floats + reference, 4 * floats};
}

namespace {

std::function<std::unique_ptr<Instance>(const Problem&, std::uint64_t seed)> product_instances(std::string topic) {
  return [topic](const Problem& p, std::uint64_t seed) -> std::unique_ptr<Instance> {
    auto in = std::make_unique<ProductInstance>();
    in->topic = topic;
    in->input_names = {"A", "B"};
    in->output_name = "C";
    in->m = product_dim(p, "m");
    in->n = product_dim(p, "n");
    in->k = product_dim(p, "k");
    in->shape = {static_cast<std::size_t>(in->m), static_cast<std::size_t>(in->n), static_cast<std::size_t>(in->k)};
    in->inputs = {std::vector<float>(static_cast<std::size_t>(in->m) * in->k),
                  std::vector<float>(static_cast<std::size_t>(in->k) * in->n)};
    fill_uniform(in->inputs[0], seed, 0, -1.0f, 1.0f);
    fill_uniform(in->inputs[1], seed, 1, -1.0f, 1.0f);
    in->reference = product_reference(in->inputs[0], in->inputs[1], in->m, in->n, in->k, seed);
    return in;
  };
}

}  // namespace

void use_product_sizes(Lesson& lesson, const std::string& topic) {
  lesson.size_help = "n for n × n matrices (m = n = k)";
  lesson.max_n = 16384;
  lesson.test_problems = product_test_problems();
  lesson.problem = product_problem;
  lesson.counts = product_counts;
  lesson.footprint = product_footprint;
  lesson.make_instance = product_instances(topic);
}

ArrayCheck product_check(double input_roundoff) {
  return check_with<ProductInstance>(
      [input_roundoff](std::span<const float> c, const ProductInstance& in, const std::string& what) {
        return check_product(c, in.reference, what, input_rounding_scale(in.k, input_roundoff));
      });
}

}  // namespace gpulab
