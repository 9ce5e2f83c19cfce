#pragma once
// The Visualize view of lessons 02 and 03: every launched thread as a cell at the element its
// index points to, coloured by warp, blocks outlined, threads stopped by the bounds guard crossed
// out; hovering a cell names its blockIdx, threadIdx, warp and element.
#include <imgui.h>

#include "common/thread_map.hpp"

namespace gpulab::app {

void draw_thread_map(const ThreadMap& map, ImVec2 size);

}  // namespace gpulab::app
