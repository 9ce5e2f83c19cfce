#pragma once
#include <cstddef>
#include <vector>

#include "common/lesson.hpp"
#include "thread_hierarchy/thread_hierarchy.hpp"

namespace gpulab {

// Lesson 02: grids, blocks and threads; the global index; <<<1, 500000>>> refused and fixed;
// grid-stride loops; a block-size sweep with occupancy; the thread map.
const Lesson& thread_hierarchy_lesson();

// What every thread of a one-thread-per-element launch over n elements did (the app's thread
// map), run on the GPU or emulated.
std::vector<thread_hierarchy::ThreadRecord> record_threads(std::size_t n, int block, Backend backend);

}  // namespace gpulab
