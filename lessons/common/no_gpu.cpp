// The GPU parts of the harness in an emulated-only build (no CUDA toolkit): there is no GPU to
// time or measure, and the session never asks (the device query says none is available).
#include <stdexcept>

#include "common/measure.hpp"
#include "common/peaks.hpp"

namespace gpulab {

std::unique_ptr<PhaseClock> make_gpu_clock() {
  throw std::logic_error("this is an emulated-only build: there is no GPU clock");
}

std::optional<Peaks> measured_peaks() { return std::nullopt; }

std::optional<double> measured_copy_gbps(std::size_t) { return std::nullopt; }

}  // namespace gpulab
