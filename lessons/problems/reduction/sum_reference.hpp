#pragma once
// s = Σ x in float64. Lesson 13 sums floats in [0, 1) (no cancellation: the error is the order's
// alone, bounded by the depth of the sum's tree); the grader's sum exercise sums whole numbers
// from −8 to 8, exact in any order while |Σ| < 2^24, so a missed or doubled element always shows.
#include <cmath>
#include <span>

namespace gpulab::reduction_problem {

template <class T>
double sum(std::span<const T> x) {
  double s = 0;  // float64 over at most 2^36 values below 1: off by < 2^-17 of the sum
  for (const T v : x) s += static_cast<double>(v);
  return s;
}

// Values drawn uniform in [−1, 1] become whole numbers from −8 to 8.
inline double whole_number(double uniform) { return std::round(uniform * 8); }

}  // namespace gpulab::reduction_problem
