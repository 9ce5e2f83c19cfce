// Exercise 06 — debugging. This convolution compiles, runs, and is wrong: it has three bugs of the
// kinds people make in shared-memory kernels. Find them and fix them.
//
// y = x ⋆ w (NCHW cross-correlation, zero padding, a stride), as in the lesson. A block of
// 16 × 16 threads computes a 16 × 16 tile of one output plane (image n and filter k, from
// blockIdx.z). For each channel, the block stages the input tile it reads — the output tile's
// windows, halo included — in shared memory, then each thread adds its window's products.
// The launch is correct. Your tools:
//   gpulab_grade --lesson 06                   the tests: which shapes fail, and how
//   lesson06_conv --variant yours --backend emulated --shape 2x3x20x20:4:3x3:1
//   compute-sanitizer --tool memcheck  build/default/bin/gpulab_grade --lesson 06 --backend gpu
//   compute-sanitizer --tool racecheck build/default/bin/gpulab_grade --lesson 06 --backend gpu
// Done when the grader passes on every backend you have and both sanitizers report 0 errors
// (on a GPU: ctest -L exercise runs them for you).
#include <span>
#include <stdexcept>

#include "common/launch.cuh"
#include "exercises/exercises.hpp"

namespace gpulab::exercises {

constexpr int kTile = kConvTile;

// The input rows (or columns) a tile of `kTile` outputs reads: the windows' starts, `stride`
// apart, plus one window.
__host__ __device__ inline int tile_extent(int filter, int stride) { return (kTile - 1) * stride + filter; }

__global__ void conv_yours(const float* x, const float* w, float* y, gpulab::conv::Shape sh) {
  const int C = sh.c, H = sh.h, W = sh.w, K = sh.k, R = sh.r, S = sh.s, P = sh.p(), Q = sh.q();
  extern __shared__ float tile[];
  const int tile_h = tile_extent(R, sh.stride), tile_w = tile_extent(S, sh.stride);
  const int n = blockIdx.z / K, k = blockIdx.z % K;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int p = static_cast<int>(blockIdx.y) * kTile + ty, q = static_cast<int>(blockIdx.x) * kTile + tx;
  // The tile's first input row and column (negative inside the padding).
  const int h0 = static_cast<int>(blockIdx.y) * kTile * sh.stride - sh.pad;
  const int w0 = static_cast<int>(blockIdx.x) * kTile * sh.stride - sh.pad;
  float sum = 0.0f;
  for (int c = 0; c < C; ++c) {
    const float* plane = x + (n + c) * H * W;
    for (int i = ty * kTile + tx; i < tile_h * tile_w; i += kTile * kTile) {
      const int h = h0 + i / tile_w, col = w0 + i % tile_w;
      tile[i] = (h >= 0 && h < H && col >= 0 && col < W) ? plane[h * W + col] : 0.0f;
    }
    __syncthreads();
    for (int r = 0; r < R; ++r) {
      for (int s = 0; s < S; ++s) {
        sum += tile[(ty * sh.stride + r) * tile_w + tx * sh.stride + s] * w[((k * C + c) * R + r) * S + s];
      }
    }
  }
  y[((n * K + k) * P + p) * Q + q] = sum;
}

void conv(std::span<const float> x, std::span<const float> w, std::span<float> y, const gpulab::conv::Shape& shape) {
  if (y.empty()) return;
  const long planes = static_cast<long>(shape.n) * shape.k;
  if (planes > device_attribute(cudaDevAttrMaxGridDimZ))
    throw std::invalid_argument("conv exercise: N × K is over the grid's z limit");
  const dim3 grid(static_cast<unsigned int>((shape.q() + kTile - 1) / kTile),
                  static_cast<unsigned int>((shape.p() + kTile - 1) / kTile), static_cast<unsigned int>(planes));
  const std::size_t shared = sizeof(float) * tile_extent(shape.r, shape.stride) * tile_extent(shape.s, shape.stride);
  conv_yours<<<grid, dim3(kTile, kTile), shared>>>(x.data(), w.data(), y.data(), shape);
  check_launch("conv_yours", grid, dim3(kTile, kTile), shared);
}

}  // namespace gpulab::exercises
