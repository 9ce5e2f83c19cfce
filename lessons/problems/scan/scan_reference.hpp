#pragma once
// y[i] = x[0] + … + x[i] (inclusive) or + x[i − 1] (exclusive), unsigned ints wrapping at 2^32:
// exact in any order. Lesson 15's check and the grader's inclusive_scan exercise.
#include <cstdint>
#include <span>
#include <vector>

namespace gpulab::scan_problem {

template <class T>
std::vector<unsigned int> scan(std::span<const T> x, bool exclusive) {
  std::vector<unsigned int> y(x.size());
  std::uint64_t sum = 0;  // in 64 bits, wrapped to 32 for each element
  for (std::size_t i = 0; i < x.size(); ++i) {
    const auto v = static_cast<std::uint64_t>(x[i]);
    y[i] = static_cast<unsigned int>(exclusive ? sum : sum + v);
    sum += v;
  }
  return y;
}

}  // namespace gpulab::scan_problem
