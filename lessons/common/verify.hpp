#pragma once
// Checking a result against a reference computed in float64.
//
// An element passes when |got - expected| <= abs + rel * |expected|; NaN passes only where the
// reference is NaN too. Outputs are poisoned before every run with a value no kernel computes, so
// an element that was never written is caught and named as such.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gpulab {

struct Tolerance {
  double rel = 0;  // relative to |expected|: fits the arithmetic (one rounding of a float: ~6e-8)
  double abs = 0;  // a floor for expected values near zero
  // How far an element may be from `expected`: abs + rel · |expected|.
  double bound(double expected) const { return abs + rel * std::abs(expected); }
};

struct Mismatch {
  std::size_t index = 0;
  double expected = 0;
  double got = 0;
};

struct CheckResult {
  bool passed = true;
  double rel_error = 0;         // ||got - expected||_2 / ||expected||_2 (inf when a NaN slipped in)
  std::size_t mismatches = 0;   // elements outside the tolerance
  std::size_t checked = 0;      // elements compared
  std::vector<Mismatch> first;  // the first few, in index order
  std::string message;          // empty when passed; otherwise what a learner can act on
};

// The byte every output is filled with before a run: 0x7F7F7F7F is the float 3.396e38 (and a
// similarly huge double), finite and far from any result the lessons compute.
inline constexpr unsigned char kPoisonByte = 0x7F;
void poison(std::span<float> out);
bool is_poison(float value);

// For checks with a bound per element (|got − expected| <= bound; NaN never passes) and what to
// say about an element outside it: never written, NaN, or how far off.
inline bool within_bound(double got, double expected, double bound) { return std::abs(got - expected) <= bound; }
std::string bound_detail(double got, double expected, double bound);

// `what` names the run in the message: "vector_add blocks (gpu)".
CheckResult compare(std::span<const float> got, std::span<const double> expected, Tolerance tolerance,
                    const std::string& what, std::size_t report = 5);
// The same with a tolerance a row (elements cols at a time): where the rounding depends on each
// row's data (layer norm's on the row's mean against its spread).
CheckResult compare_rows(std::span<const float> got, std::span<const double> expected,
                         std::span<const Tolerance> row_tolerance, std::size_t cols, const std::string& what,
                         std::size_t report = 5);

}  // namespace gpulab
