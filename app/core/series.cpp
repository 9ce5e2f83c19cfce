// Grouping results into series and deriving what the plots show.
#include "core/series.hpp"

#include <algorithm>
#include <limits>
#include <map>

namespace gpulab::app {

const Stats* time_of(const Result& result, TimeKind kind) {
  // CPU rows have no copies: their end-to-end time is their compute time.
  if (kind == TimeKind::end_to_end && result.total) return &*result.total;
  if (result.kernel) return &*result.kernel;
  return result.total ? &*result.total : nullptr;
}

void SeriesSet::add(const Result& result, const std::string& source) {
  const SeriesKey key{result.variant, result.backend, source};
  if (source.empty()) live_.push_back(result);
  auto it = std::find_if(series_.begin(), series_.end(), [&](const Series& s) { return s.key == key; });
  if (it == series_.end()) {
    std::string label = result.variant + " (" + std::string(to_string(result.backend));
    if (!source.empty()) label += ", recorded: " + source;
    series_.push_back({key, label + ")", true, {}});
    it = series_.end() - 1;
  }
  auto& points = it->points;
  auto same = std::find_if(points.begin(), points.end(), [&](const Result& p) {
    return p.lesson == result.lesson && p.problem.n == result.problem.n && p.block == result.block;
  });
  if (same != points.end()) {
    *same = result;
  } else {
    points.push_back(result);
    std::stable_sort(points.begin(), points.end(),
                     [](const Result& a, const Result& b) { return a.problem.n < b.problem.n; });
  }
}

void SeriesSet::clear_live() {
  std::erase_if(series_, [](const Series& s) { return !s.key.recorded(); });
  live_.clear();
}

void SeriesSet::remove_source(const std::string& source) {
  std::erase_if(series_, [&](const Series& s) { return s.key.source == source; });
}

void SeriesSet::set_visible(std::size_t index, bool visible) {
  if (index < series_.size()) series_[index].visible = visible;
}

bool SeriesSet::has_recorded() const {
  return std::any_of(series_.begin(), series_.end(), [](const Series& s) { return s.key.recorded(); });
}

namespace {

bool plotted(const Result& r, const std::string& lesson) {
  return r.status == Status::passed && (lesson.empty() || r.lesson == lesson);
}

template <typename Value>
std::vector<PlotLine> lines(const std::vector<Series>& series, const std::string& lesson, Value value) {
  std::vector<PlotLine> out;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    if (!s.visible) continue;
    PlotLine line{i, s.label, s.key.recorded(), {}};
    for (const Result& r : s.points) {
      if (!plotted(r, lesson)) continue;
      if (auto p = value(r)) line.points.push_back(*p);
    }
    if (!line.points.empty()) out.push_back(std::move(line));
  }
  return out;
}

}  // namespace

std::vector<PlotLine> SeriesSet::times(const std::string& lesson, TimeKind kind) const {
  return lines(series_, lesson, [kind](const Result& r) -> std::optional<PlotPoint> {
    const Stats* t = time_of(r, kind);
    if (t == nullptr || !(t->median > 0)) return std::nullopt;
    return PlotPoint{static_cast<double>(r.problem.n), t->median, t->min, t->max};
  });
}

std::vector<PlotLine> SeriesSet::speedups(const std::string& lesson, TimeKind kind) const {
  std::map<std::int64_t, double> best_cpu;
  for (const Series& s : series_) {
    if (s.key.backend != Backend::cpu) continue;
    for (const Result& r : s.points) {
      const Stats* t = time_of(r, kind);
      if (!plotted(r, lesson) || t == nullptr || !(t->median > 0)) continue;
      auto [it, fresh] = best_cpu.emplace(r.problem.n, t->median);
      if (!fresh) it->second = std::min(it->second, t->median);
    }
  }
  return lines(series_, lesson, [&](const Result& r) -> std::optional<PlotPoint> {
    const Stats* t = time_of(r, kind);
    const auto cpu = best_cpu.find(r.problem.n);
    if (t == nullptr || !(t->median > 0) || cpu == best_cpu.end()) return std::nullopt;
    // A slower run (max time) is a smaller speedup, so the spread flips.
    const double lo = t->max > 0 ? cpu->second / t->max : cpu->second / t->median;
    const double hi = t->min > 0 ? cpu->second / t->min : cpu->second / t->median;
    return PlotPoint{static_cast<double>(r.problem.n), cpu->second / t->median, lo, hi};
  });
}

std::vector<PlotLine> SeriesSet::rates(const std::string& lesson, RateKind kind) const {
  return lines(series_, lesson, [kind](const Result& r) -> std::optional<PlotPoint> {
    const double rate = kind == RateKind::gbps ? r.gbps : r.gflops;
    if (!(rate > 0) || !r.kernel || !(r.kernel->median > 0)) return std::nullopt;
    // The rate's spread follows the kernel time's: rate scales as 1 / time.
    const double lo = r.kernel->max > 0 ? rate * r.kernel->median / r.kernel->max : rate;
    const double hi = r.kernel->min > 0 ? rate * r.kernel->median / r.kernel->min : rate;
    return PlotPoint{static_cast<double>(r.problem.n), rate, lo, hi};
  });
}

Ladder SeriesSet::ladder(const std::string& lesson, RateKind kind) const {
  const auto rate = [kind](const Result& r) { return kind == RateKind::gbps ? r.gbps : r.gflops; };
  std::map<std::int64_t, int> counts;  // size -> series with a passed point there
  for (const Series& s : series_) {
    if (!s.visible) continue;
    std::int64_t last = -1;
    for (const Result& r : s.points) {
      if (plotted(r, lesson) && rate(r) > 0 && r.problem.n != last) ++counts[last = r.problem.n];
    }
  }
  Ladder ladder;
  int most = 0;
  for (const auto& [n, count] : counts) most = std::max(most, count);
  for (const auto& [n, count] : counts) {  // the largest size with at least half the most, and two
    if (count >= 2 && 2 * count >= most) ladder.n = n;
  }
  if (ladder.n == 0) return ladder;
  for (std::size_t i = 0; i < series_.size(); ++i) {
    if (!series_[i].visible) continue;
    double best = 0;  // over block sizes
    for (const Result& r : series_[i].points) {
      if (plotted(r, lesson) && r.problem.n == ladder.n) {
        best = std::max(best, rate(r));
        ladder.size = problem_label(r.problem);
      }
    }
    if (best <= 0) continue;
    const SeriesKey& key = series_[i].key;
    const std::string label =
        key.variant + " (" + std::string(to_string(key.backend)) + (key.recorded() ? ", recorded)" : ")");
    // One bar per variant and backend: recorded files that share a size give the same bar.
    auto same =
        std::find_if(ladder.bars.begin(), ladder.bars.end(), [&](const LadderBar& b) { return b.label == label; });
    if (same == ladder.bars.end()) {
      ladder.bars.push_back({i, label, key.variant, best});
    } else if (best > same->value) {
      *same = {i, label, key.variant, best};
    }
  }
  std::stable_sort(ladder.bars.begin(), ladder.bars.end(),
                   [](const LadderBar& a, const LadderBar& b) { return a.value < b.value; });
  return ladder;
}

}  // namespace gpulab::app
