#pragma once
// The emulated device's limits, without the CUDA-language macros of cuda_language.hpp.
#include "base/device_info.hpp"

namespace gpulab::emulated {

// A typical current NVIDIA GPU's limits (1024 threads per block, 48 KB of shared memory per
// block), with one "multiprocessor" per CPU worker thread.
const DeviceInfo& device();

}  // namespace gpulab::emulated
