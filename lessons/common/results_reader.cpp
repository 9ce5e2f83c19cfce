// Parsing a results JSON file back into a Report, with a clear message for a file that is not one.
#include "common/results_reader.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "base/text_file.hpp"
#include "common/memory_json.hpp"

namespace gpulab {

namespace {

using Json = nlohmann::json;

const Json& field(const Json& object, const char* name, const std::string& where) {
  if (!object.is_object() || !object.contains(name))
    throw BadResultsFile(fmt::format("{}: no field '{}'", where, name));
  return object.at(name);
}

template <typename T>
T value(const Json& object, const char* name, const std::string& where) {
  const Json& v = field(object, name, where);
  try {
    return v.get<T>();
  } catch (const Json::exception&) {
    throw BadResultsFile(fmt::format("{}.{}: unexpected value {}", where, name, v.dump()));
  }
}

std::optional<double> optional_number(const Json& object, const char* name) {
  if (!object.contains(name) || !object.at(name).is_number()) return std::nullopt;
  return object.at(name).get<double>();
}

// A timing as written: the median, and the spread where the file has it.
std::optional<Stats> timing(const Json& object, const std::string& stem) {
  const auto median = optional_number(object, (stem + "_ms").c_str());
  if (!median) return std::nullopt;
  Stats s;
  s.median = s.mean = *median;
  s.min = optional_number(object, (stem + "_ms_min").c_str()).value_or(*median);
  s.max = optional_number(object, (stem + "_ms_max").c_str()).value_or(*median);
  s.count = 1;
  return s;
}

Result result_of(const Json& j, const std::string& where) {
  Result r;
  r.lesson = value<std::string>(j, "lesson", where);
  r.variant = value<std::string>(j, "variant", where);
  const auto backend_name = value<std::string>(j, "backend", where);
  const auto backend = parse_backend(backend_name);
  if (!backend) throw BadResultsFile(fmt::format("{}.backend: '{}' is not a backend", where, backend_name));
  r.backend = *backend;
  r.problem.n = value<std::int64_t>(j, "n", where);
  if (r.problem.n < 0) throw BadResultsFile(fmt::format("{}.n: negative size {}", where, r.problem.n));
  if (j.contains("sizes") && j.at("sizes").is_object()) {
    for (const auto& [name, size] : j.at("sizes").items()) {
      if (size.is_number_integer()) r.problem.dims.emplace_back(name, size.get<std::int64_t>());
    }
  }
  if (j.contains("block") && j.at("block").is_number_integer()) r.block = j.at("block").get<int>();
  if (j.contains("reps") && j.at("reps").is_number_integer()) r.reps = j.at("reps").get<int>();
  if (j.contains("seed") && j.at("seed").is_number_unsigned()) r.seed = j.at("seed").get<std::uint64_t>();
  r.kernel = timing(j, "kernel");
  r.total = timing(j, "total");
  r.h2d = timing(j, "h2d");
  r.d2h = timing(j, "d2h");
  r.gbps = optional_number(j, "gbps").value_or(0);
  r.gflops = optional_number(j, "gflops").value_or(0);
  r.percent_of_peak = optional_number(j, "percent_of_copy_peak");
  r.percent_of_fp32_peak = optional_number(j, "percent_of_fp32_peak");
  r.occupancy = optional_number(j, "occupancy");
  r.rel_error = optional_number(j, "rel_error").value_or(0);
  if (j.contains("memory")) {
    try {
      r.memory = memory_from_json(j.at("memory"));
    } catch (const std::invalid_argument& e) {
      throw BadResultsFile(fmt::format("{}.{}", where, e.what()));
    }
  }
  const auto status = j.contains("status") && j.at("status").is_string() ? j.at("status").get<std::string>() : "";
  r.status = status == "passed"    ? Status::passed
             : status == "failed"  ? Status::failed
             : status == "skipped" ? Status::skipped
                                   : Status::error;
  if (j.contains("message") && j.at("message").is_string()) r.message = j.at("message").get<std::string>();
  return r;
}

}  // namespace

Report parse_json_report(const std::string& text) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw BadResultsFile(fmt::format("not valid JSON ({})", e.what()));
  }
  if (!j.is_object() || !j.contains("results")) {
    throw BadResultsFile("not a GPU Lab results file (no 'results' list at the top level)");
  }
  Report report;
  if (j.contains("command") && j.at("command").is_string()) report.command = j.at("command").get<std::string>();
  if (j.contains("date") && j.at("date").is_string()) report.date = j.at("date").get<std::string>();
  if (j.contains("device") && j.at("device").is_object()) {
    const Json& d = j.at("device");
    report.device.available = true;
    report.device.name = value<std::string>(d, "name", "device");
    if (d.contains("multiprocessors") && d.at("multiprocessors").is_number_integer())
      report.device.multiprocessors = d.at("multiprocessors").get<int>();
    if (d.contains("memory_bytes") && d.at("memory_bytes").is_number_unsigned())
      report.device.total_memory = d.at("memory_bytes").get<std::size_t>();
  } else if (j.contains("device_reason") && j.at("device_reason").is_string()) {
    report.device.reason = j.at("device_reason").get<std::string>();
  }
  if (j.contains("peaks") && j.at("peaks").is_object()) {
    Peaks peaks;
    peaks.copy_gbps = optional_number(j.at("peaks"), "copy_gbps").value_or(0);
    peaks.copy_bytes = optional_number(j.at("peaks"), "copy_bytes").value_or(0);
    peaks.fp32_gflops = optional_number(j.at("peaks"), "fp32_gflops").value_or(0);
    report.peaks = peaks;
  }
  const Json& results = j.at("results");
  if (!results.is_array()) throw BadResultsFile("'results' is not a list");
  for (std::size_t i = 0; i < results.size(); ++i) {
    report.results.push_back(result_of(results[i], fmt::format("results[{}]", i)));
  }
  return report;
}

Report read_json_report(const std::string& path) {
  const std::optional<std::string> text = read_text_file(path);
  if (!text) throw BadResultsFile(fmt::format("{}: cannot open the file", path));
  try {
    return parse_json_report(*text);
  } catch (const BadResultsFile& e) {
    throw BadResultsFile(fmt::format("{}: {}", path, e.what()));
  }
}

}  // namespace gpulab
