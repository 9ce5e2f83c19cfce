#pragma once
// The device target of a test built twice, for the GPU (GPULAB_TEST_ON_GPU=1) and for the emulator.
#include "common/targets.hpp"

namespace gpulab::test {

#if GPULAB_TEST_ON_GPU
inline constexpr Backend kBackend = Backend::gpu;
using Target = GpuTarget;
#else
inline constexpr Backend kBackend = Backend::emulated;
using Target = EmulatedTarget;
#endif

}  // namespace gpulab::test
