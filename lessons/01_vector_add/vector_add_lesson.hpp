#pragma once
#include "common/lesson.hpp"

namespace gpulab {

// Lesson 01: c = a + b, the "hello world" of CUDA, and why copies dominate it.
const Lesson& vector_add_lesson();

}  // namespace gpulab
