#include "common/timeline.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gpulab {

namespace {

double end_of(const Timeline& t, bool serial) {
  double end = 0;
  for (const TimelineSpan& s : t.spans) {
    if ((s.stream < 0) == serial) end = std::max(end, s.end_ms);
  }
  return end;
}

char letter(const std::string& engine) {
  if (engine == "copy in") return '>';
  if (engine == "kernel") return '#';
  if (engine == "copy out") return '<';
  return engine == "all-reduce" ? 'A' : engine.empty() ? '?' : engine.front();  // forward, backward, update, ...
}

std::string legend(const Timeline& t) {
  return t.gpus > 0 ? "l launch, f forward, b backward, A all-reduce and update, u update, j join"
                    : "> copy in, # kernel, < copy out";
}

std::string format_step_timeline(const Timeline& t);
std::string format_lanes(const Timeline& t);

}  // namespace

double Timeline::serial_ms() const { return end_of(*this, true); }
double Timeline::overlapped_ms() const { return end_of(*this, false); }

std::vector<TimelineLane> timeline_lanes(const Timeline& t) {
  std::vector<TimelineLane> lanes;
  if (t.gpus > 0) {
    auto around = [](const TimelineSpan& s) { return s.engine == "launch" || s.engine == "join"; };
    lanes.push_back({"GPU 0 events", around});
    for (int g = 0; g < t.gpus; ++g) {
      lanes.push_back({fmt::format("GPU {} step", g), [g, around](const TimelineSpan& s) {
                         return s.stream == g && s.engine != "all-reduce" && !around(s);
                       }});
      if (t.gpus > 1) {
        lanes.push_back({fmt::format("GPU {} NCCL", g),
                         [g](const TimelineSpan& s) { return s.stream == g && s.engine == "all-reduce"; }});
      }
    }
    return lanes;
  }
  if (t.serial_ms() > 0) lanes.push_back({"serial, 1 stream", [](const TimelineSpan& s) { return s.stream < 0; }});
  for (const std::string engine : {"copy in", "kernel", "copy out"}) {
    lanes.push_back({engine == "kernel" ? "kernels" : "engine: " + engine,
                     [engine](const TimelineSpan& s) { return s.stream >= 0 && s.engine == engine; }});
  }
  for (int stream = 0; stream < t.streams; ++stream) {
    lanes.push_back({fmt::format("stream {}", stream), [stream](const TimelineSpan& s) { return s.stream == stream; }});
  }
  return lanes;
}

std::string format_timeline(const Timeline& t) {
  if (t.gpus > 0) return format_step_timeline(t);
  std::string out =
      fmt::format("{} on {}: n = {}, {} chunks over {} streams\n", t.variant, t.device, t.n, t.chunks, t.streams);
  if (t.serial_ms() > 0) {
    out += fmt::format("serial copy in, kernel, copy out: {:.3f} ms; overlapped: {:.3f} ms ({:.2f}x)\n", t.serial_ms(),
                       t.overlapped_ms(), t.overlapped_ms() > 0 ? t.serial_ms() / t.overlapped_ms() : 0.0);
  }
  out += fmt::format("\n{:<8} {:>5}  {:<8} {:>10} {:>10}\n", "stream", "chunk", "engine", "start ms", "end ms");
  for (const TimelineSpan& s : t.spans) {
    out += fmt::format("{:<8} {:>5}  {:<8} {:>10.3f} {:>10.3f}\n", s.stream < 0 ? "serial" : std::to_string(s.stream),
                       s.chunk, s.engine, s.start_ms, s.end_ms);
  }
  return out + format_lanes(t);
}

namespace {

std::string format_step_timeline(const Timeline& t) {
  double first = 0, last = 0, before = 0, after = 0;  // the GPUs' work; GPU 0's readings around step()
  for (const TimelineSpan& s : t.spans) {
    if (s.engine == "launch") {
      before = s.start_ms;
    } else if (s.engine == "join") {
      after = s.end_ms;
    } else {
      first = std::min(first, s.start_ms);
      last = std::max(last, s.end_ms);
    }
  }
  std::string out = fmt::format(
      "{} on {} × {}: {} examples a GPU\nthe GPUs' work, first start to last end: {:.1f} µs; GPU 0's default stream "
      "from before step() to after it (where a program's events would be): {:.1f} µs\n",
      t.variant, t.gpus, t.device, t.n, (last - first) * 1000, (after - before) * 1000);
  out +=
      fmt::format("\n{:<4} {:>5}  {:<10} {:>10} {:>10} {:>8}\n", "GPU", "layer", "phase", "start ms", "end ms", "µs");
  for (const TimelineSpan& s : t.spans) {
    out += fmt::format("{:<4} {:>5}  {:<10} {:>10.3f} {:>10.3f} {:>8.1f}\n", s.stream,
                       s.chunk < 0 ? "all" : std::to_string(s.chunk), s.engine, s.start_ms, s.end_ms,
                       (s.end_ms - s.start_ms) * 1000);
  }
  return out + format_lanes(t);
}

std::string format_lanes(const Timeline& t) {
  // The lanes: 100 columns for the longer of the two runs (or the step), a letter per engine.
  const double length = std::max(t.serial_ms(), t.overlapped_ms());
  if (length <= 0) return {};
  constexpr int kColumns = 100;
  std::string out = fmt::format("\nlanes ({:.3f} ms across; {}):\n", length, legend(t));
  for (const TimelineLane& lane : timeline_lanes(t)) {
    std::string row(kColumns, '.');
    for (const TimelineSpan& s : t.spans) {
      if (!lane.holds(s)) continue;
      const auto from = static_cast<int>(std::floor(s.start_ms / length * kColumns));
      const auto to = std::max(from + 1, static_cast<int>(std::ceil(s.end_ms / length * kColumns)));
      for (int c = std::max(0, from); c < std::min(kColumns, to); ++c)
        row[static_cast<std::size_t>(c)] = letter(s.engine);
    }
    out += fmt::format("{:<18}|{}|\n", lane.label, row);
  }
  return out;
}

}  // namespace

std::string timeline_to_json(const Timeline& t) {
  nlohmann::json j;
  j["kind"] = "gpulab-timeline";
  j["variant"] = t.variant;
  j["device"] = t.device;
  j["recorded"] = t.recorded;
  j["n"] = t.n;
  j["streams"] = t.streams;
  j["chunks"] = t.chunks;
  if (t.gpus > 0) j["gpus"] = t.gpus;
  j["spans"] = nlohmann::json::array();
  for (const TimelineSpan& s : t.spans) {
    j["spans"].push_back({{"stream", s.stream},
                          {"chunk", s.chunk},
                          {"engine", s.engine},
                          {"start_ms", s.start_ms},
                          {"end_ms", s.end_ms}});
  }
  return j.dump(1);
}

Timeline timeline_from_json(const std::string& text) {
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (j.value("kind", "") != "gpulab-timeline") throw std::runtime_error("not a GPU Lab timeline (no \"kind\")");
    Timeline t;
    t.variant = j.at("variant").get<std::string>();
    t.device = j.at("device").get<std::string>();
    t.recorded = j.value("recorded", "");
    t.n = j.at("n").get<std::int64_t>();
    t.streams = j.at("streams").get<int>();
    t.chunks = j.at("chunks").get<int>();
    t.gpus = j.value("gpus", 0);
    for (const auto& s : j.at("spans")) {
      TimelineSpan span{s.at("stream").get<int>(), s.at("chunk").get<int>(), s.at("engine").get<std::string>(),
                        s.at("start_ms").get<double>(), s.at("end_ms").get<double>()};
      if (span.stream >= t.streams || !(span.end_ms >= span.start_ms)) {
        throw std::runtime_error("a span outside its streams or ending before it starts");
      }
      t.spans.push_back(std::move(span));
    }
    return t;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("corrupt timeline: ") + e.what());
  }
}

}  // namespace gpulab
