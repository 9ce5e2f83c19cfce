#pragma once
// A logarithmic axis for the app's plots: the range that holds the data, rounded out to readable
// ticks (1 µs, 10 µs, 100 µs, 1 ms ...), and where a value falls along it. No OpenGL here, so the
// tests can check it.
#include <string>
#include <vector>

namespace gpulab::app {

// What the axis measures decides how its labels read.
enum class Unit { milliseconds, count, gbps, gflops, ratio };

struct Tick {
  double value = 0;
  std::string label;
  bool major = true;  // a power of ten; minor ticks (2, 5) are drawn fainter and unlabelled
};

class LogAxis {
 public:
  // The smallest range of whole decades that holds [lo, hi]; non-positive values are ignored.
  // With no positive data it shows 1 to 10.
  static LogAxis fit(double lo, double hi, Unit unit);

  double lo() const { return lo_; }
  double hi() const { return hi_; }
  Unit unit() const { return unit_; }
  // 0 at lo, 1 at hi; values at or below zero map to 0.
  double position(double value) const;
  double value_at(double position) const;
  // A tick per decade; with few decades, minor ticks at 2 and 5 as well. At most `max_labels`
  // decades carry a label (every second or third one when there is no room for all).
  std::vector<Tick> ticks(int max_labels = 12) const;

 private:
  double lo_ = 1, hi_ = 10;
  Unit unit_ = Unit::count;
};

// "1 µs", "10 ms", "2 s"; "1K", "64M"; "1 GB/s", "4 TB/s"; "10 GFLOP/s", "1 TFLOP/s"; "0.1×", "10×".
std::string format_value(double value, Unit unit);

}  // namespace gpulab::app
