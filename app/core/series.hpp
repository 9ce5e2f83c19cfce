#pragma once
// The measurements the app has, grouped into series (one per variant, backend and source) and
// turned into what the plots draw: time, speedup over the best CPU variant, and achieved rates.
// Live runs and recorded files (assets/results/) live side by side; recorded ones say so.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/results.hpp"

namespace gpulab::app {

struct SeriesKey {
  std::string variant;
  Backend backend = Backend::cpu;
  std::string source;  // "" for this session's runs; else where the recorded points came from
  bool recorded() const { return !source.empty(); }
  bool operator==(const SeriesKey&) const = default;
};

struct Series {
  SeriesKey key;
  std::string label;  // "tiled (gpu)", "tiled (gpu, recorded: NVIDIA H200)"
  bool visible = true;
  std::vector<Result> points;  // by size; a later run at the same size and block replaces the earlier
};

// One line of a plot: x is the size, y the value, [lo, hi] the spread (equal to y where none).
struct PlotPoint {
  double x = 0, y = 0, lo = 0, hi = 0;
};
struct PlotLine {
  std::size_t series = 0;  // index into SeriesSet::series(), for colour and toggling
  std::string label;
  bool recorded = false;
  std::vector<PlotPoint> points;
};

// One bar of a ladder chart: a series' GFLOP/s at the ladder's size.
struct LadderBar {
  std::size_t series = 0;  // index into SeriesSet::series()
  std::string label;
  std::string variant;
  double value = 0;  // GFLOP/s or GB/s, as the ladder was asked for
};
struct Ladder {
  std::int64_t n = 0;           // the size every bar was measured at (0: nothing to draw)
  std::string size;             // that size for a title: "n = 4096", or a shape "64x64x56x56→64 3x3 p1 s1"
  std::vector<LadderBar> bars;  // slowest first: the ladder climbs
};

enum class TimeKind { kernel, end_to_end };
enum class RateKind { gbps, gflops };

class SeriesSet {
 public:
  // Points that failed or were skipped are kept (the results table shows them) but never plotted.
  void add(const Result& result, const std::string& source = "");
  void clear_live();                              // this session's runs
  void remove_source(const std::string& source);  // one recorded file
  void set_visible(std::size_t index, bool visible);
  bool has_recorded() const;

  const std::vector<Series>& series() const { return series_; }
  const std::vector<Result>& live_results() const { return live_; }  // in arrival order

  // Only series of `lesson` ("" for all) that are visible.
  std::vector<PlotLine> times(const std::string& lesson, TimeKind kind) const;
  // The best CPU time at the same size (any CPU series with that size, live or recorded) over each
  // point's time; sizes with no CPU point are left out.
  std::vector<PlotLine> speedups(const std::string& lesson, TimeKind kind) const;
  std::vector<PlotLine> rates(const std::string& lesson, RateKind kind) const;
  // The visible series' rates (GFLOP/s for arithmetic, GB/s for memory traffic) side by side at one
  // size: the largest size at which at least two and at least half as many as at the best-covered
  // size passed, live and recorded alike (one bar per variant and backend).
  Ladder ladder(const std::string& lesson, RateKind kind = RateKind::gflops) const;

 private:
  std::vector<Series> series_;
  std::vector<Result> live_;
};

// The time a plot uses: the kernel (or the CPU function), or end to end with the copies; nullptr
// when the result has no such time.
const Stats* time_of(const Result& result, TimeKind kind);

}  // namespace gpulab::app
