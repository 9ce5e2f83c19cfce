#pragma once
// The tensor-core GEMMs of lesson 09 (GPU builds only). Device memory, row-major; A and B hold
// 16-bit values (FP16 or BF16 bit patterns, see mixed.hpp), C floats.
#include <cstdint>

#include "mixed/mixed.hpp"

namespace gpulab::mixed {

// One warp per 16 × 16 tile of C, fragments loaded straight from global memory (WMMA's
// simplest use). m, n and k must be multiples of 16.
void wmma_simple(Storage s, const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k);
// 128 × 128 tiles of C per block of 8 warps, A and B staged through shared memory by
// asynchronous copies three tiles ahead: any m, n, k.
void wmma_tiled(Storage s, const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k);

// The same tiles with the PTX beneath WMMA: swizzled shared memory filled by asynchronous copies
// three k-steps of 64 deep, fragments loaded with ldmatrix, multiplied with mma.sync (compute
// capability 8.0 or newer): any m, n, k.
void mma_ldmatrix(Storage s, const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k);

// Whether this GPU's tensor cores take the format (BF16 needs compute capability 8.0).
bool tensor_cores_take(Storage s);

}  // namespace gpulab::mixed
