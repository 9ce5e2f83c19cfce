#pragma once
#include "common/lesson.hpp"

namespace gpulab {

// Lesson 05: C = A · B in FP32, from one thread per element to register-tiled, warp-tiled,
// double-buffered kernels; cuBLAS on the GPU and OpenBLAS on the CPU as the libraries to beat.
const Lesson& matmul_lesson();

}  // namespace gpulab
