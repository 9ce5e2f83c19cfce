#pragma once
// Lesson 19's Visualize picture: one query's online softmax tile by tile, read from the emulator's
// recording of the fused kernel (common/online_softmax_steps.hpp) — the tile's scores as cells
// coloured by their final weight, the running maximum, the factor that rescales the old sum and
// output when it grows, the running sum, and the output row after each tile against the exact one.
#include "common/online_softmax_steps.hpp"

namespace gpulab::app {

// Draws `steps`; `query` is the query shown (radio buttons change it).
void draw_online_softmax(const OnlineSoftmaxSteps& steps, int& query);

}  // namespace gpulab::app
