#pragma once
// The results model shared by the executables and the app, and its three outputs: an aligned
// table for people, CSV for spreadsheets, JSON for tools (and for recorded reference runs).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/device_info.hpp"
#include "common/backend.hpp"
#include "common/lesson.hpp"
#include "common/peaks.hpp"
#include "common/stats.hpp"
#include "emulator/observers/memory_counts.hpp"

namespace gpulab {

enum class Status { passed, failed, error, skipped };
std::string_view to_string(Status status);

struct Result {
  std::string lesson;  // "01"
  std::string variant;
  Backend backend = Backend::cpu;
  Problem problem;
  int block = 0;  // threads per block; 0 where the variant takes none
  int reps = 0, warmup = 0;
  std::uint64_t seed = 0;
  Status status = Status::passed;
  std::string message;  // why it failed, errored or was skipped
  // Timings in milliseconds; empty where a phase does not apply (no copies on the CPU) or the
  // run never got that far.
  std::optional<Stats> kernel, h2d, d2h, total;
  double gbps = 0, gflops = 0;  // from the kernel's median time and the lesson's counts
  std::optional<double> h2d_gbps, d2h_gbps;
  std::optional<double> percent_of_peak;  // kernel GB/s over the measured copy bandwidth
  // For compute-bound work (lesson 05 on): kernel GFLOP/s over the measured FP32 ceiling.
  std::optional<double> percent_of_fp32_peak;
  std::optional<double> occupancy;  // theoretical occupancy of the kernel, where reported
  double rel_error = 0;
  // Emulated: the timings are of the emulator's fast path (no checks), after a checked first run.
  bool fast_path = false;
  // Emulated, with --memory-report: each kernel's memory requests, sectors and bank conflicts.
  std::vector<emulated::KernelTraffic> memory;
};

struct Report {
  std::string command;
  std::string date;  // ISO 8601, UTC
  DeviceInfo device;
  std::optional<Peaks> peaks;
  std::uint64_t seed = 0;
  std::vector<Result> results;
};

// A problem's size as the tables print it: "1048576", or "1000x1000x1000" (its dims).
std::string dims_text(const Problem& p);
// "n = 1000", or the shape where the problem has several sizes: for messages.
std::string problem_label(const Problem& p);
// The backend as a row shows it: emulated rows say they are CPU times, and when they timed the
// emulator's fast path.
std::string backend_text(const Result& r);
// The emulator's checked-mode tool whose report a result's message carries ("racecheck", ...),
// or "": what the app shows in a failed row.
std::string reported_tool(const Result& r);
// "1,048,576": counts as the tables, the reports and the app print them.
std::string thousands(std::uint64_t count);
std::string format_table(const std::vector<Result>& results);
std::string format_csv(const std::vector<Result>& results);
std::string format_json(const Report& report);

// Writes to FILE.tmp and renames, so a reader never sees half a file. Throws on failure.
void write_file_atomically(const std::string& path, const std::string& text);

// "7.10 µs", "1.23 ms", "2.50 s"
std::string format_ms(double ms);

std::string utc_now_iso8601();

}  // namespace gpulab
