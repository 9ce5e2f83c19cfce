#pragma once
// Element-by-element problems: each output a few float operations of its inputs, so its bound is
// a few roundings of the values involved. Lessons 01 and 03 (a + b) check against these, and the
// grader's vector_add, matrix_add, affine and half_storage_add exercises.
#include "problems/expected.hpp"

namespace gpulab::elementwise {

// c = a + b, one rounding: within u of |c| (the lessons' sums and the exercises').
inline double add(double a, double b) { return a + b; }
inline constexpr Tolerance kAddTolerance{kFloatUnit, 0};

// y = 2x + 1: two roundings (or one fused), each within u of what it rounds.
inline double affine(double x) { return 2.0 * x + 1.0; }
inline double affine_bound(double x) { return 2.0 * kFloatUnit * (2.0 * std::abs(x) + 1.0); }

// c = a + b with a, b and the sum each rounded to FP16 (three roundings of 2⁻¹¹).
inline double half_add_bound(double a, double b) {
  return kHalfUnit * (std::abs(a) + std::abs(b) + std::abs(a + b)) + 1e-7;
}

}  // namespace gpulab::elementwise
