#pragma once
// The reductions of a row shared by a warp or a block, for the kernels that give a row to a warp
// or a block (softmax, layer norm): after a warp's 5 shuffles every lane holds the warp's result;
// a block's reduction adds one trip through shared memory and two barriers.
#include <cmath>

namespace gpulab::transformer {

__device__ inline float warp_max(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}
__device__ inline float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// A block's maximum (or sum): each warp reduces by shuffles, then warp 0 reduces the warps'
// results; every thread gets the block's. `partial` is 33 floats of shared memory.
template <bool Max>
__device__ float block_reduce(float v, float* partial) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  v = Max ? warp_max(v) : warp_sum(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    float w = lane < warps ? partial[lane] : (Max ? -INFINITY : 0.0f);
    w = Max ? warp_max(w) : warp_sum(w);
    if (lane == 0) partial[32] = w;
  }
  __syncthreads();
  const float result = partial[32];
  __syncthreads();  // partial is used again by the next reduction
  return result;
}

__device__ inline float block_sum(float v, float* partial) { return block_reduce<false>(v, partial); }

}  // namespace gpulab::transformer
