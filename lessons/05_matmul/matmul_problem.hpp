#pragma once
// A matrix product as a lesson's problem — shapes, what it counts, its memory, random inputs and
// the float64 reference — shared by lesson 05 (FP32) and lesson 09 (16-bit inputs).
#include <cstdint>
#include <memory>
#include <vector>

#include "05_matmul/matmul_check.hpp"
#include "common/lesson.hpp"

namespace gpulab {

struct ProductInstance : Instance {
  int m = 0, n = 0, k = 0;
  std::vector<float> a, b;  // uniform in [-1, 1] from the seed
  ProductReference reference;
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
std::unique_ptr<Instance> make_product_instance(const Problem& p, std::uint64_t seed);

}  // namespace gpulab
