#pragma once
#include "common/lesson.hpp"

namespace gpulab {

// Lesson 04: σ(x) = 1 / (1 + e^-x) with a __device__ function; expf against __expf; a form that
// is stable for every x; and operator fusion (one pass against three).
const Lesson& sigmoid_lesson();

}  // namespace gpulab
