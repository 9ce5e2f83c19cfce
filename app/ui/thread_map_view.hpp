#pragma once
// The Visualize view of lessons 02 and 03: every launched thread as a cell at the element its
// index points to, coloured by warp (or by the sectors its warp's requests touch), blocks outlined, threads stopped by
// the bounds guard crossed out; hovering a cell names its blockIdx, threadIdx, warp and element.
#include <imgui.h>

#include <cstdint>
#include <map>
#include <utility>

#include "common/thread_map.hpp"

namespace gpulab::app {

// `sectors`, where given: each warp's (block number, warp) sectors per global request, which
// colour its cells instead of the warp's number (green: coalesced, red: scattered).
using WarpSectors = std::map<std::pair<std::uint64_t, unsigned>, double>;
void draw_thread_map(const ThreadMap& map, ImVec2 size, const WarpSectors* sectors = nullptr);

}  // namespace gpulab::app
