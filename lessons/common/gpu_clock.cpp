// The harness's GPU clock (measure.hpp's PhaseClock): event_clock.hpp's, the one the grader's
// driver times a learner's function with too.
#include "common/event_clock.hpp"
#include "common/measure.hpp"

namespace gpulab {

namespace {

class GpuClock : public PhaseClock {
 public:
  bool hold_next() override { return events_.hold_next(); }
  bool held() override { return events_.held(); }
  void mark(int k) override { events_.mark(k); }
  void wait() override { events_.wait(); }
  PhaseTimes phases() override { return events_.phases(); }

 private:
  EventClock<ThrowOnError> events_{ThrowOnError{}};
};

}  // namespace

std::unique_ptr<PhaseClock> make_gpu_clock() { return std::make_unique<GpuClock>(); }

}  // namespace gpulab
