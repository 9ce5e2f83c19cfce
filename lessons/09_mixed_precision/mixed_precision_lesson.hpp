#pragma once
#include "common/lesson.hpp"

namespace gpulab {

// Lesson 09: matrix multiply with A and B stored in FP16 or BF16 and summed in FP32, on the tensor
// cores (WMMA kernels of our own, cuBLAS with FP16, BF16 and TF32), each beside its error.
const Lesson& mixed_precision_lesson();

}  // namespace gpulab
