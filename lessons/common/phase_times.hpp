#pragma once
// How GPU Lab times one repetition of a run's phases — copies in, compute, copies out — the one
// way, shared by the harness's rows (measure.cpp) and the grader's driver
// (exercises/grading/driver.cpp, which compiles this header and event_clock.hpp into the
// learner's program), so a learner's `yours` row is timed exactly as its neighbours are.
// Header-only for that reason.

namespace gpulab {

// The milliseconds of one repetition's phases: copies in, compute, copies out, and end to end.
struct PhaseTimes {
  double h2d_ms = 0, kernel_ms = 0, d2h_ms = 0, total_ms = 0;
};

// One timed repetition: `once()` end to end as the host sees it, then — where the clock can hold
// the stream — once more with the compute phase held, whose kernel time (without the launch) it
// keeps. `once()` marks the clock and returns the repetition's times.
template <typename Once, typename Clock>
PhaseTimes timed_repetition(Once&& once, Clock& clock) {
  PhaseTimes t = once();
  if (clock.hold_next()) {
    const PhaseTimes held = once();
    if (clock.held()) t.kernel_ms = held.kernel_ms;
  }
  return t;
}

}  // namespace gpulab
