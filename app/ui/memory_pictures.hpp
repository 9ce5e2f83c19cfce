#pragma once
// The Memory view's pictures, from the emulator's counts (emulator/observers/memory_counts.hpp):
// - one warp's request as it reaches memory: for global memory its 32 lanes and the 32-byte
//   sectors they touch (4 for 32 consecutive floats, 32 for 32 floats a row apart); for shared
//   memory the lanes and the 32 banks, a bank that must deliver several words marked (a conflict);
// - a roofline: each variant's point predicted from the bytes the emulator counted and the lesson's
//   FLOPs against the device's measured ceilings, beside its measured point.
#include <imgui.h>

#include <optional>
#include <string>
#include <vector>

#include "emulator/observers/memory_counts.hpp"

namespace gpulab::app {

void draw_warp_request(const emulated::LineTraffic& line, ImVec2 size);

// Sectors per warp request, 1 (a broadcast) to 32 (scattered), as a colour: green for what a
// coalesced warp of 4-byte lanes needs (4 or fewer), through yellow to red.
ImU32 sectors_colour(double sectors_per_request);

struct RooflinePoint {
  std::string variant;
  double intensity = 0;                   // FLOPs per byte of sectors the emulator counted
  double predicted_gflops = 0;            // min(FP32 peak, copy bandwidth × intensity)
  std::optional<double> measured_gflops;  // live or recorded, at the same size
};

struct Ceilings {
  double copy_gbps = 0, fp32_gflops = 0;
  std::string source;  // "measured on this GPU", "recorded on NVIDIA H100 80GB HBM3"
};

void draw_roofline(const std::vector<RooflinePoint>& points, const Ceilings& ceilings, ImVec2 size);

}  // namespace gpulab::app
