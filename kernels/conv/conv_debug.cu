// The debugging lesson's kernel (conv.hpp has the API): a small shared-memory convolution, correct
// or with one of three realistic bugs planted, for the learner to find with the checked mode.
//
// Run them: lesson06_conv --shape 64x64x56x56:64:3x3 --backend gpu
#include <stdexcept>
#include <string>

#include "common/launch.cuh"
#include "conv/conv.hpp"
#include "conv/conv_tiles.cuh"

namespace gpulab::conv {

// ---------------------------------------------------------------- 6. the debugging kernel

// [snippet:debug_kernel]
// A plain shared-memory convolution: one filter and a 16 × 16 output tile per block. Bug::none
// is correct; each other value plants one mistake people make (see the lesson's debugging part).
template <Bug kBug>
__global__ void debug_tiled_kernel(const float* x, const float* w, float* y, Shape sh) {
  const int C = sh.c, H = sh.h, W = sh.w, K = sh.k, R = sh.r, S = sh.s, P = sh.p(), Q = sh.q();
  extern __shared__ float tile[];
  const int tile_h = tile_extent(kTile, R, sh.stride), tile_w = tile_extent(kTile, S, sh.stride);
  const int n = blockIdx.z / K, k = blockIdx.z % K;
  const int ty = threadIdx.x / kTile, tx = threadIdx.x % kTile;
  const int h0 = static_cast<int>(blockIdx.y) * kTile * sh.stride - sh.pad;
  const int w0 = static_cast<int>(blockIdx.x) * kTile * sh.stride - sh.pad;
  float sum = 0.0f;
  for (int c = 0; c < C; ++c) {
    // Bug::channels: the loop runs over the channels but always reads channel 0.
    const int channel = kBug == Bug::channels ? 0 : c;
    const float* plane = x + (n * C + channel) * H * W;
    for (int i = threadIdx.x; i < tile_h * tile_w; i += kTileThreads) {
      const int h = h0 + i / tile_w, col = w0 + i % tile_w;
      tile[i] = (h >= 0 && h < H && col >= 0 && col < W) ? plane[h * W + col] : 0.0f;
    }
    __syncthreads();
    for (int r = 0; r < R; ++r) {
      for (int s = 0; s < S; ++s) {
        const int row = ty * sh.stride + r, col = tx * sh.stride + s;
        // Bug::shared_index: the output tile's width (16) as the row pitch, not the input tile's.
        const int index = kBug == Bug::shared_index ? row * kTile + col : row * tile_w + col;
        sum += tile[index] * w[((k * C + c) * R + r) * S + s];
      }
    }
    // Bug::barrier: without this barrier a fast thread starts loading the next channel into the
    // tile while slower ones still read this one.
    if (kBug != Bug::barrier) __syncthreads();
  }
  const int p = static_cast<int>(blockIdx.y) * kTile + ty, q = static_cast<int>(blockIdx.x) * kTile + tx;
  if (p < P && q < Q) y[((n * K + k) * P + p) * Q + q] = sum;
}
// [/snippet]

void debug_tiled(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape, Bug bug) {
  check_buffers(x, w, y, shape);
  if (y.empty()) return;
  const long z = static_cast<long>(shape.n) * shape.k;
  if (z > device_attribute(cudaDevAttrMaxGridDimZ))
    throw std::invalid_argument("debug_tiled: too many images × filters for one grid");
  const dim3 grid(blocks_for(shape.q(), kTile), blocks_for(shape.p(), kTile), static_cast<unsigned int>(z));
  const dim3 threads(kTileThreads);
  const std::size_t shared_bytes =
      sizeof(float) * tile_extent(kTile, shape.r, shape.stride) * tile_extent(kTile, shape.s, shape.stride);
  switch (bug) {
    case Bug::none:
      debug_tiled_kernel<Bug::none><<<grid, threads, shared_bytes>>>(x.data(), w.data(), y.data(), shape);
      check_launch("debug_tiled_kernel<Bug::none>", grid, threads, shared_bytes);
      break;
    case Bug::shared_index:
      debug_tiled_kernel<Bug::shared_index><<<grid, threads, shared_bytes>>>(x.data(), w.data(), y.data(), shape);
      check_launch("debug_tiled_kernel<Bug::shared_index>", grid, threads, shared_bytes);
      break;
    case Bug::channels:
      debug_tiled_kernel<Bug::channels><<<grid, threads, shared_bytes>>>(x.data(), w.data(), y.data(), shape);
      check_launch("debug_tiled_kernel<Bug::channels>", grid, threads, shared_bytes);
      break;
    case Bug::barrier:
      debug_tiled_kernel<Bug::barrier><<<grid, threads, shared_bytes>>>(x.data(), w.data(), y.data(), shape);
      check_launch("debug_tiled_kernel<Bug::barrier>", grid, threads, shared_bytes);
      break;
  }
}

}  // namespace gpulab::conv
