#include "common/results.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/memory_json.hpp"
#include "emulator/observers/checker.hpp"
#include "emulator/observers/memory_counter.hpp"

#include "common/version.hpp"

namespace gpulab {

std::string reported_tool(const Result& r) { return emulated::check::reported_tool(r.message); }

std::string thousands(std::uint64_t count) { return emulated::memory_counter::thousands(count); }

std::string_view to_string(Status status) {
  switch (status) {
    case Status::passed:
      return "passed";
    case Status::failed:
      return "failed";
    case Status::error:
      return "error";
    case Status::skipped:
      return "skipped";
  }
  return "?";
}

std::string format_ms(double ms) {
  if (ms < 1e-3) return fmt::format("{:.0f} ns", ms * 1e6);
  if (ms < 1.0) return fmt::format("{:.3g} µs", ms * 1e3);
  if (ms < 1000.0) return fmt::format("{:.3g} ms", ms);
  return fmt::format("{:.3g} s", ms / 1e3);
}

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string dims_text(const Problem& p) {
  if (p.dims.size() <= 1) return std::to_string(p.n);
  // A convolution layer: "8x16x56x56→16 3x3 p1 s1" (input N×C×H×W, K filters of R×S, padding, stride).
  std::map<std::string, std::int64_t> d(p.dims.begin(), p.dims.end());
  if (d.size() == 9 && d.count("K") && d.count("R") && d.count("pad") && d.count("stride")) {
    return fmt::format("{}x{}x{}x{}→{} {}x{} p{} s{}", d["N"], d["C"], d["H"], d["W"], d["K"], d["R"], d["S"], d["pad"],
                       d["stride"]);
  }
  // Lesson 19's attention: "4x16x4096x128:causal" (batch × heads × seq × head_dim, as --shape takes it).
  if (d.size() == 5 && d.count("heads") && d.count("head_dim") && d.count("causal")) {
    return fmt::format("{}x{}x{}x{}{}", d["batch"], d["heads"], d["seq"], d["head_dim"], d["causal"] ? ":causal" : "");
  }
  // Lesson 08's arrays in chunks over streams: "16777216 in 16 chunks / 4 streams".
  if (d.size() == 2 && d.count("chunks") && d.count("streams")) {
    return fmt::format("{} in {} chunks / {} streams", p.n, d["chunks"], d["streams"]);
  }
  // Lesson 14's bytes and the share of them that is one value: "268435456, 100 % one value".
  if (d.size() == 2 && d.count("n") && d.count("skew")) {
    return d["skew"] == 0 ? fmt::format("{} uniform", p.n) : fmt::format("{}, {} % one value", p.n, d["skew"]);
  }
  // Lesson 15's elements and the kind of scan: "268435456, exclusive".
  if (d.size() == 2 && d.count("n") && d.count("exclusive")) {
    return fmt::format("{}, {}", p.n, d["exclusive"] != 0 ? "exclusive" : "inclusive");
  }
  // … and its stream compaction, with the share of the values it keeps: "268435456, keep 50 %".
  if (d.size() == 2 && d.count("n") && d.count("keep_percent")) {
    return fmt::format("{}, keep {} %", p.n, d["keep_percent"]);
  }
  // A CNN's images, filters, hidden units and batch: "32² → 16 → 32 → 128, batch 32".
  if (d.count("batch") && d.count("side") && d.count("c1")) {
    return fmt::format("{}² → {} → {} → {}, batch {}", d["side"], d["c1"], d["c2"], d["hidden"], d["batch"]);
  }
  // A network, its batch per GPU and the GPUs: "784→128→10, batch 128 × 2 GPUs" (0: every GPU).
  if (d.count("batch") && d.count("hidden") && d.count("gpus")) {
    return fmt::format("{}→{}→{}, batch {} × {}", d["in"], d["hidden"], d["out"], d["batch"],
                       d["gpus"] > 0 ? fmt::format("{} GPU{}", d["gpus"], d["gpus"] == 1 ? "" : "s") : "every GPU");
  }
  // A network and its batch: "2→16→1, batch 64".
  if (d.count("batch") && d.count("hidden")) {
    return fmt::format("{}→{}→{}, batch {}", d["in"], d["hidden"], d["out"], d["batch"]);
  }
  std::string text;
  for (const auto& [name, value] : p.dims) text += (text.empty() ? "" : "x") + std::to_string(value);
  return text;
}

std::string problem_label(const Problem& p) { return p.dims.size() > 1 ? dims_text(p) : "n = " + std::to_string(p.n); }

namespace {

std::string opt_ms(const std::optional<Stats>& s) { return s ? format_ms(s->median) : "—"; }
std::string spread(const std::optional<Stats>& s) {
  return s && s->count > 0 ? format_ms(s->min) + " – " + format_ms(s->max) : "—";
}
std::string rate(double value) { return value > 0 ? fmt::format("{:.4g}", value) : "—"; }
// Failures in capitals: they must stand out in a long table.
std::string check_text(const Result& r) {
  switch (r.status) {
    case Status::passed:
      return fmt::format("passed ({:.1e})", r.rel_error);
    case Status::failed:
      return fmt::format("FAILED ({:.1e})", r.rel_error);
    case Status::error:
      return "ERROR";
    case Status::skipped:
      return "skipped";
  }
  return "?";
}
// The columns a person reads; emulated rows are CPU time and say so.
// The kernel's rate over the ceiling it is bound by: the copy bandwidth or the FP32 peak.
std::string peak_text(const Result& r) {
  if (r.percent_of_fp32_peak) return fmt::format("{:.1f} % FP32", *r.percent_of_fp32_peak);
  if (r.percent_of_peak) return fmt::format("{:.1f} % copy", *r.percent_of_peak);
  return "—";
}

}  // namespace

std::string backend_text(const Result& r) {
  if (r.backend != Backend::emulated) return std::string(to_string(r.backend));
  return r.fast_path ? "emulated (CPU, fast)" : "emulated (CPU)";
}

std::string format_table(const std::vector<Result>& results) {
  std::vector<std::string> head = {"variant",          "backend",   "n",    "block", "kernel",
                                   "kernel min – max", "H2D",       "D2H",  "total", "GB/s",
                                   "GFLOP/s",          "% of peak", "check"};
  std::vector<std::vector<std::string>> rows;
  for (const Result& r : results) {
    rows.push_back({r.variant, backend_text(r), dims_text(r.problem), r.block > 0 ? std::to_string(r.block) : "—",
                    opt_ms(r.kernel), spread(r.kernel), opt_ms(r.h2d), opt_ms(r.d2h), opt_ms(r.total), rate(r.gbps),
                    rate(r.gflops), peak_text(r), check_text(r)});
  }
  // The occupancy column only where some variant reports it (lesson 02's block-size sweep).
  if (std::any_of(results.begin(), results.end(), [](const Result& r) { return r.occupancy.has_value(); })) {
    head.insert(head.begin() + 4, "occupancy");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& occ = results[i].occupancy;
      rows[i].insert(rows[i].begin() + 4, occ ? fmt::format("{:.0f} %", 100 * *occ) : "—");
    }
  }
  // Width in characters, not bytes ("µ" and "–" are two and three bytes in UTF-8).
  auto width = [](const std::string& s) {
    std::size_t w = 0;
    for (unsigned char c : s) w += (c & 0xC0) != 0x80;
    return w;
  };
  std::vector<std::size_t> widths(head.size());
  for (std::size_t c = 0; c < head.size(); ++c) {
    widths[c] = width(head[c]);
    for (const auto& row : rows) widths[c] = std::max(widths[c], width(row[c]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string pad(widths[c] - width(cells[c]), ' ');
      // Text columns align left, numbers right.
      out += c < 2 ? cells[c] + pad : pad + cells[c];
      out += c + 1 < cells.size() ? "  " : "\n";
    }
    return out;
  };
  std::string out = line(head);
  for (const auto& row : rows) out += line(row);
  return out;
}

namespace {
// One flat record per result, shared by CSV and JSON so the two never disagree.
nlohmann::ordered_json record(const Result& r) {
  nlohmann::ordered_json j;
  auto ms = [](const std::optional<Stats>& s, double Stats::*f) -> nlohmann::ordered_json {
    return s ? nlohmann::ordered_json((*s).*f) : nlohmann::ordered_json(nullptr);
  };
  auto opt = [](const std::optional<double>& v) -> nlohmann::ordered_json {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
  };
  j["lesson"] = r.lesson;
  j["variant"] = r.variant;
  j["backend"] = to_string(r.backend);
  // Never pass emulated times off as GPU times.
  j["timed_on"] = r.backend == Backend::gpu   ? "gpu (CUDA events)"
                  : r.backend == Backend::cpu ? "cpu"
                  : r.fast_path               ? "cpu (emulating the GPU kernel, fast path: no checks)"
                                              : "cpu (emulating the GPU kernel, checked)";
  j["n"] = r.problem.n;
  nlohmann::ordered_json sizes = nlohmann::ordered_json::object();
  for (const auto& [name, value] : r.problem.dims) sizes[name] = value;
  j["sizes"] = sizes;
  j["block"] = r.block > 0 ? nlohmann::ordered_json(r.block) : nlohmann::ordered_json(nullptr);
  j["reps"] = r.reps;
  j["warmup"] = r.warmup;
  j["seed"] = r.seed;
  j["kernel_ms"] = ms(r.kernel, &Stats::median);
  j["kernel_ms_min"] = ms(r.kernel, &Stats::min);
  j["kernel_ms_max"] = ms(r.kernel, &Stats::max);
  j["h2d_ms"] = ms(r.h2d, &Stats::median);
  j["d2h_ms"] = ms(r.d2h, &Stats::median);
  j["total_ms"] = ms(r.total, &Stats::median);
  j["total_ms_min"] = ms(r.total, &Stats::min);
  j["total_ms_max"] = ms(r.total, &Stats::max);
  j["gbps"] = r.gbps;
  j["gflops"] = r.gflops;
  j["h2d_gbps"] = opt(r.h2d_gbps);
  j["d2h_gbps"] = opt(r.d2h_gbps);
  j["percent_of_copy_peak"] = opt(r.percent_of_peak);
  j["percent_of_fp32_peak"] = opt(r.percent_of_fp32_peak);
  j["occupancy"] = opt(r.occupancy);
  // JSON has no infinity: a NaN that slipped into an output is written as null.
  j["rel_error"] = std::isfinite(r.rel_error) ? nlohmann::ordered_json(r.rel_error) : nlohmann::ordered_json(nullptr);
  j["passed"] = r.status == Status::passed;
  j["status"] = to_string(r.status);
  j["message"] = r.message;
  return j;
}

std::string csv_cell(const nlohmann::ordered_json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string quoted = "\"";
    for (char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
  }
  if (v.is_object()) {  // sizes: "m=1;n=2;k=3"
    std::string s;
    for (const auto& [k, x] : v.items()) s += (s.empty() ? "" : ";") + k + "=" + x.dump();
    return s;
  }
  return v.dump();
}
}  // namespace

std::string format_csv(const std::vector<Result>& results) {
  std::string out;
  bool header = true;
  for (const Result& r : results) {
    const nlohmann::ordered_json j = record(r);
    if (header) {
      for (auto it = j.begin(); it != j.end(); ++it) out += (it == j.begin() ? "" : ",") + it.key();
      out += "\n";
      header = false;
    }
    for (auto it = j.begin(); it != j.end(); ++it) out += (it == j.begin() ? "" : ",") + csv_cell(it.value());
    out += "\n";
  }
  return out;
}

std::string format_json(const Report& report) {
  nlohmann::ordered_json j;
  j["gpulab_version"] = version();
  j["commit"] = commit();
  j["date"] = report.date;
  j["command"] = report.command;
  if (report.device.available) {
    const DeviceInfo& d = report.device;
    j["device"] = {{"name", d.name},
                   {"compute_capability", d.compute_capability()},
                   {"multiprocessors", d.multiprocessors},
                   {"memory_bytes", d.total_memory},
                   {"max_threads_per_block", d.max_threads_per_block},
                   {"driver", d.driver_string()},
                   {"runtime", d.runtime_string()}};
  } else {
    j["device"] = nullptr;
    j["device_reason"] = report.device.reason;
  }
  if (report.peaks) {
    j["peaks"] = {{"copy_gbps", report.peaks->copy_gbps},
                  {"copy_bytes", report.peaks->copy_bytes},
                  {"fp32_gflops", report.peaks->fp32_gflops}};
  } else {
    j["peaks"] = nullptr;
  }
  j["seed"] = report.seed;
  j["results"] = nlohmann::ordered_json::array();
  for (const Result& r : report.results) {
    nlohmann::ordered_json row = record(r);
    if (!r.memory.empty()) row["memory"] = memory_to_json(r.memory);
    j["results"].push_back(row);
  }
  return j.dump(2) + "\n";
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + tmp);
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw std::runtime_error("cannot write " + tmp + " (disk full?)");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot rename " + tmp + " to " + path);
  }
}

}  // namespace gpulab
