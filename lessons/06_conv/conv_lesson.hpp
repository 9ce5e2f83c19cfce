#pragma once
#include "common/lesson.hpp"

namespace gpulab {

// Lesson 06: 2-D convolution (NCHW, padding, stride) from one thread per output to shared-memory
// tiles, lowering to GEMM, Winograd, FFT and a fused conv + bias + ReLU; cuDNN as the library to beat.
const Lesson& conv_lesson();

}  // namespace gpulab
