#pragma once
// C = A + B on a 2-D grid as a lesson's workload: its sizes, inputs and float64 check, the CPU's
// loops and the kernels' mappings (coalesced, float4, transposed) as variants, and the thread map.
// Lesson 03 teaches it; lesson 11 profiles the same two mappings.
#include "common/lesson.hpp"

namespace gpulab {

Lesson matrix_add_workload();

}  // namespace gpulab
