#pragma once
// The device backend of a test built twice, for the GPU (GPULAB_TEST_ON_GPU=1) and for the emulator.
#include "common/backend.hpp"
#include "common/device_memory.hpp"

namespace gpulab::test {

#if GPULAB_TEST_ON_GPU
inline constexpr Backend kBackend = Backend::gpu;
#else
inline constexpr Backend kBackend = Backend::emulated;
#endif

// Chosen for the main thread, where the test cases run, before any of them: every buffer and
// launcher of the test is on its backend.
[[maybe_unused]] inline const UseDevice kOnTestBackend(kBackend);

}  // namespace gpulab::test
