#pragma once
// Small kernels that exercise what the emulator models (barriers, shared memory, warp shuffles
// and votes, atomics, 3-D indices, launch rules, checked mode). The tests run them emulated and
// on the GPU and compare both with the CPU.
#include <cstddef>
#include <cstdint>
#include <span>

#include "common/launch_description.hpp"

namespace gpulab::gpu::test_kernels {
#include "kernels/emulator_kernels.inc"
}
namespace gpulab::emulated::test_kernels {
#include "kernels/emulator_kernels.inc"
}
