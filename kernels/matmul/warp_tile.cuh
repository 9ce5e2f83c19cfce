#pragma once
// The arithmetic of one k-step of a warp tile (lesson 05's warp_tiled_kernel, also the inner loop
// of lesson 06's implicit GEMM). A lane owns groups of 4 × 4 elements of its warp's tile: rows
// ly·4 + 16·g, columns lx·4 + 32·h. It reads its TM values of A (stored transposed, so they are
// contiguous) and TN values of B as float4s from shared memory and adds their outer product.
// `a` and `b` point to the warp's first row and column at this k.
#include <cuda_runtime.h>

// In namespace gpulab (not a build's own): a __device__ template, compiled into each build apart.
namespace gpulab {

// [snippet:warp_tile_products]
template <int TM, int TN>
__device__ __forceinline__ void warp_tile_products(const float* a, const float* b, int ly, int lx,
                                                   float (&sum)[TM][TN]) {
  float ra[TM], rb[TN];
  for (int g = 0; g < TM / 4; ++g) {
    const float4 v = *reinterpret_cast<const float4*>(a + 16 * g + ly * 4);
    ra[4 * g] = v.x, ra[4 * g + 1] = v.y, ra[4 * g + 2] = v.z, ra[4 * g + 3] = v.w;
  }
  for (int h = 0; h < TN / 4; ++h) {
    const float4 v = *reinterpret_cast<const float4*>(b + 32 * h + lx * 4);
    rb[4 * h] = v.x, rb[4 * h + 1] = v.y, rb[4 * h + 2] = v.z, rb[4 * h + 3] = v.w;
  }
#pragma unroll
  for (int r = 0; r < TM; ++r) {
#pragma unroll
    for (int c = 0; c < TN; ++c) sum[r][c] += ra[r] * rb[c];
  }
}
// [/snippet]

}  // namespace gpulab
