#pragma once
// What ran where and when in one run of a lesson 08 pipeline, or in one training step over
// several GPUs (lesson 10): the data behind `--timeline` and the app's Visualize view for lesson
// 08. Recorded on the GPU; a recording can be saved as JSON and read back (the app shows a
// recorded one on a machine without a GPU).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpulab {

struct TimelineSpan {
  int stream = 0;      // -1: the serial run (one stream, no chunks) shown for comparison; lesson 10: the GPU
  int chunk = 0;       // which piece of the arrays; lesson 10: the layer (-1: every layer)
  std::string engine;  // "copy in", "kernel", "copy out"; lesson 10: "forward", "backward", "all-reduce", "update"
  double start_ms = 0, end_ms = 0;
};

struct Timeline {
  std::string variant;   // "sigmoid_overlap"
  std::string device;    // "NVIDIA H100 80GB HBM3"
  std::string recorded;  // when, in UTC: "2026-11-22T18:10:00Z"
  std::int64_t n = 0;    // lesson 10: examples per GPU
  int streams = 0, chunks = 0;
  int gpus = 0;  // > 0: a step over that many GPUs (lesson 10); streams = gpus, chunks = layers
  std::vector<TimelineSpan> spans;

  double serial_ms() const;      // end of the serial run (0: not recorded)
  double overlapped_ms() const;  // end of the last span of the streams
};

// The rows a timeline is drawn in, top to bottom: the serial run (where recorded), one per engine
// (copy in, kernels, copy out), one per stream; `holds` says which spans go in a row. A step over
// GPUs: two rows a GPU, its step's stream and the stream that averages its gradients.
struct TimelineLane {
  std::string label;
  std::function<bool(const TimelineSpan&)> holds;
};
std::vector<TimelineLane> timeline_lanes(const Timeline& timeline);

// The readable form: a line per span, then the lanes as text.
std::string format_timeline(const Timeline& timeline);

std::string timeline_to_json(const Timeline& timeline);
// Throws std::runtime_error naming what is wrong with a corrupt or foreign file.
Timeline timeline_from_json(const std::string& text);

}  // namespace gpulab
