#pragma once
// What a problem's float64 reference gives whoever checks a kernel against it — a lesson's check
// or the grader: each element's value and how far a correct float kernel may be from it
// (|got − value| <= bound; a NaN value wants NaN). The bound is derived once, in the problem's
// folder, from the arithmetic a correct kernel does.
#include <cmath>
#include <cstddef>
#include <span>
#include <vector>

#include "common/verify.hpp"

namespace gpulab {

// One rounding of a float: u = 2⁻²⁴ of the value rounded.
inline constexpr double kFloatUnit = 0x1p-24;
// One rounding of a 16-bit float (FP16): 2⁻¹¹.
inline constexpr double kHalfUnit = 0x1p-11;
// A floor for bounds at exact zeros and σ's flushed tails.
inline constexpr double kTinyBound = 1e-30;

struct Expected {
  std::vector<double> value;
  std::vector<double> bound;
};

// A Tolerance's bound for each value: abs + rel · |value|.
inline Expected within(std::vector<double> value, Tolerance tolerance) {
  Expected e;
  e.bound.resize(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) e.bound[i] = tolerance.bound(value[i]);
  e.value = std::move(value);
  return e;
}

}  // namespace gpulab
