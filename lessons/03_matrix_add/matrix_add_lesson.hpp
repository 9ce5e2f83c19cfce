#pragma once
#include "common/lesson.hpp"

namespace gpulab {

// Lesson 03: C = A + B on a 2-D grid; coalesced against transposed thread mappings, and the CPU's
// own version of the same lesson (row order against column order).
const Lesson& matrix_add_lesson();

}  // namespace gpulab
