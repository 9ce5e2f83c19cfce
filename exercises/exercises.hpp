#pragma once
// The classroom exercises: per lesson, the lesson's key kernel for the learner to write (and its
// launch, where the launch is the point), in exercises/NN_*/. Each file builds twice, for the GPU
// and for the emulator, like the lessons' kernels, and each lesson runs it as its variant `yours`.
// -DGPULAB_SOLUTIONS=ON builds exercises/solutions/ instead: the same files, finished.
#include <cstddef>
#include <span>

#include "conv/conv_shape.hpp"

namespace gpulab::gpu::exercises {
#include "exercises/exercise_launchers.inc"
}
namespace gpulab::emulated::exercises {
#include "exercises/exercise_launchers.inc"
}
