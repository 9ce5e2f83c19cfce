#pragma once
#include "common/lesson.hpp"

namespace gpulab {

// Lesson 08: hiding the copies. Pageable against pinned memory, copies and kernels in chunks over
// several streams, the same chunks as one CUDA graph, and device memory per run from cudaMalloc
// against a stream-ordered pool; on lesson 01's and 04's workloads.
const Lesson& streams_lesson();

}  // namespace gpulab
