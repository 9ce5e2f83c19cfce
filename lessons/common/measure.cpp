#include "common/measure.hpp"

#include <array>
#include <chrono>
#include <optional>

#include "emulator/observers/checker.hpp"
#include "emulator/observers/memory_counter.hpp"

namespace gpulab {

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

class HostClock : public PhaseClock {
 public:
  void mark(int k) override { marks_[static_cast<std::size_t>(k)] = Clock::now(); }
  void wait() override {}
  PhaseTimes phases() override {
    return {ms_between(marks_[0], marks_[1]), ms_between(marks_[1], marks_[2]), ms_between(marks_[2], marks_[3]), 0};
  }

 private:
  std::array<Clock::time_point, 4> marks_;
};

Stats summarize_field(const std::vector<PhaseTimes>& samples, double PhaseTimes::*field) {
  std::vector<double> values;
  values.reserve(samples.size());
  for (const PhaseTimes& s : samples) values.push_back(s.*field);
  return summarize(values);
}

}  // namespace

std::unique_ptr<PhaseClock> make_host_clock() { return std::make_unique<HostClock>(); }

Measurement measure(Run& run, Backend backend, const RunOptions& options, const std::function<bool()>& cancelled) {
  Measurement m;
  if (run.times_itself()) {  // its own process did the first call, the warm-up and the timed calls
    run.poison();
    run.upload();
    run.compute();
    run.download();
    m.first_check = run.check();
    m.final_check = m.first_check;
    if (m.first_check.passed) m.samples = run.own_times();
  } else {
    const std::unique_ptr<PhaseClock> clock = backend == Backend::gpu ? make_gpu_clock() : make_host_clock();
    auto once = [&] {
      run.poison();
      clock->wait();
      const auto start = Clock::now();
      clock->mark(0);
      run.upload();
      clock->mark(1);
      run.compute();
      clock->mark(2);
      run.download();
      clock->mark(3);
      clock->wait();
      PhaseTimes t = clock->phases();
      t.total_ms = ms_between(start, Clock::now());
      return t;
    };
    if (options.count_memory && backend == Backend::emulated) {
      emulated::memory_counter::start(options.count_warps);
      try {
        once();
      } catch (...) {
        emulated::memory_counter::stop();
        throw;
      }
      m.memory = emulated::memory_counter::stop();
    } else {
      once();
    }
    m.first_check = run.check();
    m.final_check = m.first_check;
    if (!m.first_check.passed) return m;  // a wrong answer is not worth timing
    // End to end as the host sees it; then the same again with the compute phase held until its
    // work is queued, where the clock can: its kernel time without the launch.
    auto timed = [&] { return timed_repetition(once, *clock); };
    // The first run was checked (and found the answer right): the repetitions that time the
    // emulator run on its fast path, as a GPU's would run without compute-sanitizer.
    std::optional<emulated::check::UseLevel> fast_path;
    if (backend == Backend::emulated && options.fast_timing) {
      fast_path.emplace(emulated::check::Level::off);
      m.timed_on_fast_path = true;
    }
    for (int i = 0; i < options.warmup; ++i) timed();
    for (int i = 0; i < options.reps; ++i) {
      if (cancelled && cancelled()) {
        m.cancelled = true;
        break;
      }
      m.samples.push_back(timed());
    }
    if (!m.samples.empty()) m.final_check = run.check();  // the last run was poisoned first too
  }
  m.h2d = summarize_field(m.samples, &PhaseTimes::h2d_ms);
  m.kernel = summarize_field(m.samples, &PhaseTimes::kernel_ms);
  m.d2h = summarize_field(m.samples, &PhaseTimes::d2h_ms);
  m.total = summarize_field(m.samples, &PhaseTimes::total_ms);
  return m;
}

}  // namespace gpulab
