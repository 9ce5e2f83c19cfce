#pragma once
// σ(x) = 1 / (1 + e⁻ˣ) and its derivative in float64, with the bounds a float kernel meets:
// lesson 04's checks and the grader's sigmoid, sigmoid_derivative and bias_sigmoid exercises.
#include "problems/expected.hpp"

namespace gpulab::sigmoid_problem {

// NaN for NaN, as a float kernel gives.
inline double sigmoid(double x) { return std::isnan(x) ? x : 1.0 / (1.0 + std::exp(-x)); }

// expf is within 2 ulp and the divide is correctly rounded: 1e-6 leaves room. __expf's error
// grows with |x| (2 + 1.16 |x| ulp): 2e-5 covers the inputs' range [-20, 20]. Values under
// 1e-30 (σ of x < -69, denormal or flushed to 0 in float) pass on the absolute floor.
inline constexpr Tolerance kTolerance{1e-6, kTinyBound};
inline constexpr Tolerance kFastTolerance{2e-5, kTinyBound};

// σ'(x) = σ(x) · (1 − σ(x)): σ's error moves it by at most its own size, and 1 − σ rounds once.
inline double derivative(double x) {
  const double s = sigmoid(x);
  return s * (1.0 - s);
}
inline double derivative_bound(double x) {
  const double s = sigmoid(x);
  return 3 * kTolerance.rel * std::abs(s * (1.0 - s)) + 2 * kFloatUnit * s + kTinyBound;
}

// σ(z + bias): σ's own error, and the rounding of the sum (σ' <= 1/4).
inline double biased_bound(double pre) {
  return kTolerance.rel * std::abs(sigmoid(pre)) + 0.25 * kFloatUnit * std::abs(pre) + kTinyBound;
}

}  // namespace gpulab::sigmoid_problem
