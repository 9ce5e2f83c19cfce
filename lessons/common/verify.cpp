#include "common/verify.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace gpulab {

void poison(std::span<float> out) {
  if (!out.empty()) std::memset(out.data(), kPoisonByte, out.size_bytes());
}

bool is_poison(float value) {
  float p;
  std::memset(&p, kPoisonByte, sizeof p);
  return std::memcmp(&p, &value, sizeof p) == 0;
}

std::string bound_detail(double got, double expected, double bound) {
  if (is_poison(static_cast<float>(got))) return "never written: does every output element have a thread?";
  if (std::isnan(got)) return "NaN";
  return fmt::format("error {:.3g} > bound {:.3g}", std::abs(got - expected), bound);
}

namespace {

bool element_ok(double got, double expected, const Tolerance& t) {
  if (std::isnan(expected)) return std::isnan(got);
  if (std::isinf(expected)) return got == expected;
  return std::abs(got - expected) <= t.bound(expected);  // false for NaN got
}

// Element i within tolerance_at(i) (a Tolerance).
template <typename ToleranceAt>
CheckResult compare_each(std::span<const float> got, std::span<const double> expected, ToleranceAt tolerance_at,
                         const std::string& what, std::size_t report) {
  CheckResult r;
  const std::size_t count = expected.size();
  r.checked = count;
  if (got.size() != expected.size()) {
    r.passed = false;
    r.rel_error = std::numeric_limits<double>::infinity();
    r.message = fmt::format("{}: output has {} elements, expected {}", what, got.size(), expected.size());
    return r;
  }
  double diff2 = 0, ref2 = 0;
  std::size_t bad = 0;
  bool nan_slipped = false;
  const auto n = static_cast<std::ptrdiff_t>(count);
#pragma omp parallel for reduction(+ : diff2, ref2, bad) reduction(|| : nan_slipped) schedule(static)
  for (std::ptrdiff_t k = 0; k < n; ++k) {
    const auto i = static_cast<std::size_t>(k);
    const double g = got[i], e = expected[i];
    if (!element_ok(g, e, tolerance_at(i))) ++bad;
    if (std::isfinite(e)) {
      if (std::isnan(g)) nan_slipped = true;
      diff2 += (g - e) * (g - e);
      ref2 += e * e;
    }
  }
  r.mismatches = bad;
  r.passed = bad == 0;
  r.rel_error =
      nan_slipped ? std::numeric_limits<double>::infinity() : (ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2));
  if (r.passed) return r;

  for (std::size_t i = 0; i < count && r.first.size() < report; ++i) {
    if (!element_ok(got[i], expected[i], tolerance_at(i))) r.first.push_back({i, expected[i], got[i]});
  }
  const Mismatch& m = r.first.front();
  const Tolerance tolerance = tolerance_at(m.index);
  const double rel = std::abs(m.got - m.expected) / std::max(std::abs(m.expected), tolerance.abs);
  std::string detail = is_poison(static_cast<float>(m.got))
                           ? "never written: is every element covered by a thread?"
                           : fmt::format("relative error {:.3g} > {:.3g}", rel, tolerance.rel);
  r.message = fmt::format("{}: {} of {} elements differ; first at {}: expected {:.9g}, got {:.9g} ({})", what, bad,
                          count, m.index, m.expected, m.got, detail);
  return r;
}

}  // namespace

CheckResult compare(std::span<const float> got, std::span<const double> expected, Tolerance tolerance,
                    const std::string& what, std::size_t report) {
  return compare_each(
      got, expected, [tolerance](std::size_t) { return tolerance; }, what, report);
}

CheckResult compare_rows(std::span<const float> got, std::span<const double> expected,
                         std::span<const Tolerance> row_tolerance, std::size_t cols, const std::string& what,
                         std::size_t report) {
  return compare_each(
      got, expected, [&](std::size_t i) { return row_tolerance[i / cols]; }, what, report);
}

}  // namespace gpulab
