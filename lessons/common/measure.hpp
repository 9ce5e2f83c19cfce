#pragma once
// The one measuring path, for the executables, the tests and the app: check once, warm up, then
// time each phase of many repetitions, and check again after timing.
//
// GPU phases are timed with CUDA events (what the GPU did, not what the host waited for); the
// end-to-end time is the host's clock around upload + compute + download, after the last one
// finished. On the GPU each repetition runs twice: as it comes, for the end-to-end time and the
// copies; and with the compute phase held until its work is queued, for the kernel time without
// the launch (GpuClock). Buffers are allocated before and poisoned between repetitions, outside every timer.
#include <functional>
#include <vector>

#include "common/backend.hpp"
#include "common/lesson.hpp"
#include "common/stats.hpp"
#include "emulator/observers/memory_counts.hpp"

namespace gpulab {

// (PhaseTimes is in lesson.hpp: a Run that times itself hands them over.)

struct Measurement {
  CheckResult first_check;  // the first run, before any timing
  CheckResult final_check;  // the last timed run, re-checked
  std::vector<PhaseTimes> samples;
  Stats h2d, kernel, d2h, total;
  std::vector<emulated::KernelTraffic> memory;  // the first run's, when counted
  bool cancelled = false;
  bool timed_on_fast_path = false;  // emulated: the timed repetitions ran without the checks
};

// Times the phases between marks 0..3 (before upload, after upload, after compute, after download).
class PhaseClock {
 public:
  virtual ~PhaseClock() = default;
  virtual void mark(int k) = 0;
  virtual void wait() = 0;          // until everything marked so far has finished
  virtual PhaseTimes phases() = 0;  // h2d, kernel, d2h from the marks (total is the caller's)
  // Whether the next repetition's compute phase will start only once its work is queued (the GPU's
  // clock: GpuClock), and, after it, whether it did.
  virtual bool hold_next() { return false; }
  virtual bool held() { return false; }
};

std::unique_ptr<PhaseClock> make_host_clock();
std::unique_ptr<PhaseClock> make_gpu_clock();  // CUDA events on the default stream

// `cancelled` is polled between repetitions (the app's Cancel button).
Measurement measure(Run& run, Backend backend, const RunOptions& options, const std::function<bool()>& cancelled = {});

}  // namespace gpulab
