#pragma once
// Four floats at a time at the edges of a matrix: lesson 05's float4 kernels (vectorised.cu,
// warp_tiled.cu, pipelined.cu) load and store whole float4s inside the matrices and fall back to
// single floats, with zeros, where a row ends or does not start on 16 bytes.
#include <cuda_runtime.h>

// In namespace gpulab (not a build's own, as warp_tile.cuh): inline __device__ functions, compiled
// into each build apart.
namespace gpulab {

// Four consecutive floats of a row, from `p` on: one 16-byte load where the caller has checked
// that the row's four elements exist and `p` is 16-byte aligned (`vector`), else one by one with
// zeros past `valid`. The branch is the same for whole warps except at the matrices' edges.
__device__ inline float4 load4(const float* p, int valid, bool vector) {
  if (vector && valid >= 4) return *reinterpret_cast<const float4*>(p);
  return make_float4(valid > 0 ? p[0] : 0.0f, valid > 1 ? p[1] : 0.0f, valid > 2 ? p[2] : 0.0f,
                     valid > 3 ? p[3] : 0.0f);
}

// The same for a store of four floats, of which `valid` exist.
__device__ inline void store4(float* p, float4 v, int valid, bool vector) {
  if (vector && valid >= 4) {
    *reinterpret_cast<float4*>(p) = v;
    return;
  }
  if (valid > 0) p[0] = v.x;
  if (valid > 1) p[1] = v.y;
  if (valid > 2) p[2] = v.z;
  if (valid > 3) p[3] = v.w;
}

// How many of the four columns from `col` on exist in a row of `cols` (0 for a row past `rows`).
__device__ inline int valid4(int row, int rows, int col, int cols) { return row < rows ? cols - col : 0; }

}  // namespace gpulab
