#pragma once
// The Hopper rungs of lesson 09 (GPU builds only; sm_90a code): A and B row-major 16-bit values
// (FP16 or BF16 bit patterns, see mixed.hpp), C floats, device memory.
#include <cstdint>
#include <string>

#include "mixed/mixed.hpp"

namespace gpulab::mixed {

// What the TMA unit needs of the matrices: it reads rows that start on 16-byte boundaries.
inline constexpr const char* kHopperShapeRule =
    "the TMA unit reads rows that start on 16-byte boundaries: n and k must be multiples of 8 "
    "(mma_ldmatrix and wmma_tiled take any size)";

// Why the Hopper rungs cannot run here (not a Hopper GPU, or a build without sm_90a code), or
// empty when they can.
std::string hopper_missing();

// mma_ldmatrix's multiply (mma.sync on swizzled tiles), its k-steps loaded by the TMA unit into a
// three-stage mbarrier pipeline: 128 × 128 tiles of C, 8 warps.
void tma_mma(Storage s, const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k);
// 128 × 256 tiles of C: a producer warp group loading by TMA, two consumer warp groups
// multiplying with wgmma from shared memory, full/empty barriers between them.
void wgmma(Storage s, const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k);
// wgmma's blocks in clusters of two that share B's loads (TMA multicast), persistent (as many
// pairs as fit at once, each taking pair after pair of tiles), a k-step's wgmma still running
// while the next is queued, C written by TMA stores through shared memory.
void wgmma_cluster(Storage s, const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k);

}  // namespace gpulab::mixed
