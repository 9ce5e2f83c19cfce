// Log axes: decades, ticks and labels.
#include "core/log_axis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpulab::app {

LogAxis LogAxis::fit(double lo, double hi, Unit unit) {
  LogAxis axis;
  axis.unit_ = unit;
  if (!(hi > 0) || !std::isfinite(hi)) return axis;
  if (!(lo > 0) || !std::isfinite(lo)) lo = hi;
  if (lo > hi) std::swap(lo, hi);
  // A little slack so points never sit on the frame, then out to whole decades.
  axis.lo_ = std::pow(10.0, std::floor(std::log10(lo) - 1e-9));
  axis.hi_ = std::pow(10.0, std::ceil(std::log10(hi) + 1e-9));
  if (axis.hi_ <= axis.lo_) axis.hi_ = axis.lo_ * 10;
  return axis;
}

double LogAxis::position(double value) const {
  if (!(value > 0)) return 0;
  return (std::log10(value) - std::log10(lo_)) / (std::log10(hi_) - std::log10(lo_));
}

double LogAxis::value_at(double position) const {
  return std::pow(10.0, std::log10(lo_) + position * (std::log10(hi_) - std::log10(lo_)));
}

std::vector<Tick> LogAxis::ticks(int max_labels) const {
  const int first = static_cast<int>(std::lround(std::log10(lo_)));
  const int last = static_cast<int>(std::lround(std::log10(hi_)));
  const int decades = std::max(1, last - first);
  max_labels = std::max(max_labels, 2);
  const int step = (decades + max_labels - 1) / max_labels;
  std::vector<Tick> ticks;
  for (int e = first; e <= last; ++e) {
    const double decade = std::pow(10.0, e);
    const bool labelled = (e - first) % step == 0;
    ticks.push_back({decade, labelled ? format_value(decade, unit_) : std::string(), labelled});
    if (decades <= 4 && e < last) {
      for (const double m : {2.0, 5.0}) ticks.push_back({m * decade, std::string(), false});
    }
  }
  return ticks;
}

namespace {

// Three significant digits at most, without trailing zeros: 1, 2.5, 10, 125.
std::string compact(double v) {
  if (v == 0) return "0";
  if (std::fabs(v) >= 1e3 || std::fabs(v) < 1e-3) {
    // Beyond %g's plain range: fixed notation with enough decimals, trailing zeros trimmed.
    const int decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(std::fabs(v)))));
    std::string s = fmt::format("{:.{}f}", v, decimals);
    if (s.find('.') != std::string::npos) {
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
    }
    return s;
  }
  return fmt::format("{:.3g}", v);
}

std::string scaled(double value, const char* const* units, int count, double base) {
  int k = 0;
  while (k + 1 < count && std::fabs(value) >= base) {
    value /= base;
    ++k;
  }
  return compact(value) + units[k];
}

}  // namespace

std::string format_value(double value, Unit unit) {
  switch (unit) {
    case Unit::milliseconds: {
      const double seconds = value / 1e3;
      if (seconds >= 1) return compact(seconds) + " s";
      if (value >= 1) return compact(value) + " ms";
      if (value >= 1e-3) return compact(value * 1e3) + " µs";
      return compact(value * 1e6) + " ns";
    }
    case Unit::count: {
      static const char* const units[] = {"", "K", "M", "G", "T"};
      return scaled(value, units, 5, 1000);
    }
    case Unit::gbps: {
      if (value < 1) return compact(value * 1e3) + " MB/s";
      static const char* const units[] = {" GB/s", " TB/s"};
      return scaled(value, units, 2, 1000);
    }
    case Unit::gflops: {
      if (value < 1) return compact(value * 1e3) + " MFLOP/s";
      static const char* const units[] = {" GFLOP/s", " TFLOP/s", " PFLOP/s"};
      return scaled(value, units, 3, 1000);
    }
    case Unit::ratio:
      return compact(value) + "×";
  }
  return compact(value);
}

}  // namespace gpulab::app
