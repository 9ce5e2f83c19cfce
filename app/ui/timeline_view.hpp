#pragma once
// Lesson 08's timeline: one lane per copy engine and per stream, each operation a bar from its
// start to its end, the serial run of the same work on top for comparison.
#include <imgui.h>

#include "common/timeline.hpp"

namespace gpulab::app {

void draw_timeline(const Timeline& timeline, ImVec2 size);

}  // namespace gpulab::app
