#pragma once
// A matrix product as a lesson's problem — shapes, what it counts, its memory, random inputs and
// the float64 reference — shared by lesson 05 (FP32) and lesson 09 (16-bit inputs).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/array_runs.hpp"
#include "common/lesson.hpp"
#include "problems/matmul/matmul_check.hpp"

namespace gpulab {

// A and B (inputs[0] and [1], uniform in [-1, 1] from the seed, shape {m, n, k}); C's sampled
// float64 reference.
struct ProductInstance : ArrayInstance {
  int m = 0, n = 0, k = 0;
  ProductReference reference;
  std::size_t output_size() const override { return static_cast<std::size_t>(m) * static_cast<std::size_t>(n); }
};

// Square n × n × n.
Problem product_problem(std::int64_t n);
// Any shape; its size on the lesson's axis is the side of the cube with the same work.
Problem product_shape(std::int64_t m, std::int64_t n, std::int64_t k);
// m, n or k of a problem.
int product_dim(const Problem& p, const char* name);
// The awkward shapes every variant is tested at: 1³, odd sizes, a non-multiple of every tile, a
// tall thin one, and empty ones.
std::vector<Problem> product_test_problems();

// 2mnk FLOPs; the least traffic in FP32: read A and B once, write C once.
Counts product_counts(const Problem& p);
Footprint product_footprint(const Problem& p);
// A lesson of products (05, 09): n × n × n by --n up to 16384, the awkward test shapes, the counts,
// the footprint and the instances; `topic` names its runs in messages ("matmul").
void use_product_sizes(Lesson& lesson, const std::string& topic);
// C against the reference; `input_roundoff` is the relative rounding of inputs stored in fewer
// bits (2^-11 for FP16: see input_rounding_scale), 0 for FP32.
ArrayCheck product_check(double input_roundoff = 0);

}  // namespace gpulab
