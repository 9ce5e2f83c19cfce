#pragma once
#include <vector>

#include "common/lesson.hpp"

namespace gpulab {

// Lesson 01: c = a + b, the "hello world" of CUDA, and why copies dominate it.
const Lesson& vector_add_lesson();

// The inputs and float64 reference of one size, exposed for the tests.
struct VectorAddInstance : Instance {
  std::vector<float> a, b;
  std::vector<double> expected;
};

}  // namespace gpulab
