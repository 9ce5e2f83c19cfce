#include "common/backend.hpp"

namespace gpulab {

const bool kGpuBuilt = GPULAB_HAVE_CUDA;

namespace {

thread_local Backend active = kGpuBuilt ? Backend::gpu : Backend::emulated;

}  // namespace

Backend active_device() { return active; }

std::string_view to_string(Backend backend) {
  switch (backend) {
    case Backend::cpu:
      return "cpu";
    case Backend::gpu:
      return "gpu";
    case Backend::emulated:
      return "emulated";
  }
  return "?";
}

std::optional<Backend> parse_backend(std::string_view name) {
  for (Backend b : kAllBackends) {
    if (to_string(b) == name) return b;
  }
  return std::nullopt;
}

UseDevice::UseDevice(Backend backend) : previous_(active) {
  if (backend == Backend::cpu) throw std::invalid_argument("UseDevice: the CPU is not a device backend");
  active = backend;
}

UseDevice::~UseDevice() { active = previous_; }

void throw_gpu_only(const char* launcher, const char* needs) {
  if (active_device() == Backend::emulated) {
    throw NotApplicable(std::string(launcher) + " needs " + needs +
                        ", which the emulator does not model: it runs on a GPU only");
  }
  throw NotApplicable(std::string(launcher) + " runs on a GPU, and this build has no GPU backend (no CUDA toolkit)");
}

}  // namespace gpulab
