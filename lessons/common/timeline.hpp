#pragma once
// What ran where and when in one run of a lesson 08 pipeline: the data behind `--timeline` and
// the app's Visualize view for that lesson. Recorded on the GPU with events; a recording can be
// saved as JSON and read back (the app shows a recorded one on a machine without a GPU).
#include <cstdint>
#include <string>
#include <vector>

namespace gpulab {

struct TimelineSpan {
  int stream = 0;      // -1: the serial run (one stream, no chunks) shown for comparison
  int chunk = 0;       // which piece of the arrays
  std::string engine;  // "copy in", "kernel", "copy out"
  double start_ms = 0, end_ms = 0;
};

struct Timeline {
  std::string variant;   // "sigmoid_overlap"
  std::string device;    // "NVIDIA H100 80GB HBM3"
  std::string recorded;  // when: "2026-11-22 18:10 UTC"
  std::int64_t n = 0;
  int streams = 0, chunks = 0;
  std::vector<TimelineSpan> spans;

  double serial_ms() const;      // end of the serial run (0: not recorded)
  double overlapped_ms() const;  // end of the last span of the streams
};

// The readable form: a line per span, then the lanes as text, one row per stream and engine.
std::string format_timeline(const Timeline& timeline);

std::string timeline_to_json(const Timeline& timeline);
// Throws std::runtime_error naming what is wrong with a corrupt or foreign file.
Timeline timeline_from_json(const std::string& text);

}  // namespace gpulab
