#pragma once
#include "common/lesson.hpp"

namespace gpulab {

// Lesson 07: one training step of a small MLP, y = σ(Wx + b) per layer, MSE and SGD: on the CPU,
// layer by layer on the GPU, and fused into a single kernel.
const Lesson& tiny_network_lesson();

}  // namespace gpulab
