#pragma once
// The thread hierarchy: y[i] = 2 x[i] + 1 computed with grids and blocks of every shape, and a
// kernel that records which block, thread and warp handled each element.
#include <cstddef>
#include <cstdint>
#include <span>

namespace gpulab::thread_hierarchy {

// What one launched thread did: its coordinates, and its element (-1: it fell outside the bounds
// guard and did nothing). The data the app's thread map draws.
struct ThreadRecord {
  std::uint32_t block = 0, thread = 0, warp = 0, lane = 0;
  std::int64_t element = -1;
};

}  // namespace gpulab::thread_hierarchy

// The GPU launchers take spans of device memory; thread_hierarchy.cu builds for the GPU and the
// emulator.
namespace gpulab::gpu::thread_hierarchy {
#include "thread_hierarchy/thread_hierarchy_launchers.inc"
}
namespace gpulab::emulated::thread_hierarchy {
#include "thread_hierarchy/thread_hierarchy_launchers.inc"
}
