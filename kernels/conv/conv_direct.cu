// Convolution on the GPU, y = x ⋆ w, NCHW (conv_shape.hpp has the shape, conv.hpp the API), the
// direct way: every output from its window of the input.
//   direct_kernel   the definition, one thread per output: every input value is read R·S·K times
//   tiled_kernel    an input tile with its halo staged in shared memory, the filters in constant
//                   memory (a warp reads one weight at a time: a broadcast), 8 filters a thread
// Plus the fused conv + bias + ReLU (tiled_kernel with an epilogue) and the separate bias + ReLU
// pass it replaces. The GEMM-based ways are in conv_gemm.cu, Winograd in conv_winograd.cu, FFT in
// conv_fft.cu, the debugging lesson's kernel in conv_debug.cu.
//
// Run them: lesson06_conv --shape 64x64x56x56:64:3x3 --backend gpu
#include <stdexcept>
#include <string>

#include "common/launch.cuh"
#include "conv/conv.hpp"
#include "conv/conv_tiles.cuh"

namespace gpulab::conv {

// ---------------------------------------------------------------- 1. direct

// [snippet:direct_kernel]
// The definition: output (n, k, p, q) sums x · w over the C × R × S window that starts at row
// p·stride − pad and column q·stride − pad; positions outside the image are the zero padding.
// Neighbouring threads (along q) read neighbouring inputs, so loads coalesce, but every input
// value is fetched again by each of the R·S windows and K filters that use it.
__global__ void direct_kernel(const float* x, const float* w, float* y, Shape sh) {
  const int C = sh.c, H = sh.h, W = sh.w, K = sh.k, R = sh.r, S = sh.s, P = sh.p(), Q = sh.q();
  const long i = long{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= static_cast<long>(sh.n) * K * P * Q) return;
  const int q = static_cast<int>(i % Q), p = static_cast<int>(i / Q % P);
  const int k = static_cast<int>(i / (static_cast<long>(P) * Q) % K);
  const int n = static_cast<int>(i / (static_cast<long>(K) * P * Q));
  float sum = 0.0f;
  for (int c = 0; c < C; ++c) {
    for (int r = 0; r < R; ++r) {
      const int h = p * sh.stride - sh.pad + r;
      if (h < 0 || h >= H) continue;
      for (int s = 0; s < S; ++s) {
        const int col = q * sh.stride - sh.pad + s;
        if (col < 0 || col >= W) continue;
        sum += x[((n * C + c) * H + h) * W + col] * w[((k * C + c) * R + r) * S + s];
      }
    }
  }
  y[i] = sum;
}
// [/snippet]

void direct(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape, int block) {
  check_buffers(x, w, y, shape);
  if (y.empty()) return;
  direct_kernel<<<dim3(blocks_for(static_cast<long>(y.size()), block)), dim3(block)>>>(x.data(), w.data(), y.data(),
                                                                                       shape);
  check_launch("direct_kernel", dim3(blocks_for(static_cast<long>(y.size()), block)), dim3(block));
}

// ---------------------------------------------------------------- 2. shared-memory tile + constant memory

constexpr int kConstantFloats = constant_filter_floats;  // 64 KB, all the constant memory a program may declare
__constant__ float filters_constant[kConstantFloats];

// [snippet:tiled_kernel]
// What it adds over direct_kernel:
// - The block's input tile, with the halo its windows reach into, is read from global memory once
//   per channel into shared memory; the R·S reads of each value then hit shared memory.
// - The filters live in constant memory. All 32 threads of a warp read the same weight at the
//   same time, which the constant cache serves as one broadcast.
// - Register blocking: each thread computes kRows outputs (rows ty, ty + 16, ...) for kFilters
//   filters, so a weight read feeds kRows multiply-adds and an input value kFilters. The
//   launcher picks 8 filters when there are 8, and 4 rows when the image is tall enough.
// The launcher copies the filters in chunks that fit 64 KB and launches once per chunk (k0 is
// the chunk's first filter). kBiasRelu adds the epilogue of the fused variant.
template <bool kBiasRelu, int kFilters, int kRows>
__global__ void __launch_bounds__(kTileThreads)
    tiled_kernel(const float* x, const float* bias, float* y, Shape sh, int k0, int k_count) {
  const int C = sh.c, H = sh.h, W = sh.w, K = sh.k, R = sh.r, S = sh.s, P = sh.p(), Q = sh.q();
  const int stride = sh.stride;
  extern __shared__ float tile[];
  const int tile_h = tile_extent(kTile * kRows, R, stride), tile_w = tile_extent(kTile, S, stride);
  const int groups = (k_count + kFilters - 1) / kFilters;
  const int n = blockIdx.z / groups;
  const int f0 = static_cast<int>(blockIdx.z) % groups * kFilters;  // within the chunk
  const int ty = threadIdx.x / kTile, tx = threadIdx.x % kTile;
  const int h0 = static_cast<int>(blockIdx.y) * kTile * kRows * stride - sh.pad;
  const int w0 = static_cast<int>(blockIdx.x) * kTile * stride - sh.pad;
  // Where each of this thread's filters starts in constant memory. Past the chunk's end a thread
  // repeats its last filter: the loop stays branch-free and those sums are never stored.
  int filter_start[kFilters];
#pragma unroll
  for (int f = 0; f < kFilters; ++f) filter_start[f] = (f0 + f < k_count ? f0 + f : k_count - 1) * C * R * S;
  float sum[kRows][kFilters] = {};
  for (int c = 0; c < C; ++c) {
    const float* plane = x + (n * C + c) * H * W;
    for (int i = threadIdx.x; i < tile_h * tile_w; i += kTileThreads) {
      const int h = h0 + i / tile_w, col = w0 + i % tile_w;
      tile[i] = (h >= 0 && h < H && col >= 0 && col < W) ? plane[h * W + col] : 0.0f;
    }
    __syncthreads();
    for (int r = 0; r < R; ++r) {
      for (int s = 0; s < S; ++s) {
        const int offset = (c * R + r) * S + s;
        float weight[kFilters];
#pragma unroll
        for (int f = 0; f < kFilters; ++f) weight[f] = filters_constant[filter_start[f] + offset];
#pragma unroll
        for (int i = 0; i < kRows; ++i) {
          const float v = tile[((ty + i * kTile) * stride + r) * tile_w + tx * stride + s];
#pragma unroll
          for (int f = 0; f < kFilters; ++f) sum[i][f] += v * weight[f];
        }
      }
    }
    __syncthreads();  // every thread is done with this channel's tile before the next overwrites it
  }
  const int q = static_cast<int>(blockIdx.x) * kTile + tx;
  for (int i = 0; i < kRows; ++i) {
    const int p = static_cast<int>(blockIdx.y) * kTile * kRows + ty + i * kTile;
    if (p >= P || q >= Q) continue;
    for (int f = 0; f < kFilters && f0 + f < k_count; ++f) {
      const int k = k0 + f0 + f;
      float v = sum[i][f];
      if (kBiasRelu) v = fmaxf(v + bias[k], 0.0f);
      y[((n * K + k) * P + p) * Q + q] = v;
    }
  }
}
// [/snippet]

namespace {

template <bool kBiasRelu, int kFilters, int kRows>
void tiled_chunk(const float* x, const float* bias, float* y, const Shape& sh, int k0, int k_count) {
  const long z = static_cast<long>(sh.n) * ((k_count + kFilters - 1) / kFilters);
  if (z > device_attribute(cudaDevAttrMaxGridDimZ))
    throw std::invalid_argument("tiled: too many images × filter groups for one grid");
  const std::size_t shared =
      sizeof(float) * tile_extent(kTile * kRows, sh.r, sh.stride) * tile_extent(kTile, sh.s, sh.stride);
  const dim3 grid(blocks_for(sh.q(), kTile), blocks_for(sh.p(), kTile * kRows), static_cast<unsigned int>(z));
  tiled_kernel<kBiasRelu, kFilters, kRows><<<grid, dim3(kTileThreads), shared>>>(x, bias, y, sh, k0, k_count);
  check_launch("tiled_kernel<kBiasRelu, kFilters, kRows>", grid, dim3(kTileThreads), shared);
}

template <bool kBiasRelu>
void tiled_launch(std::span<const float> x, std::span<const float> w, const float* bias, std::span<float> y,
                  const Shape& sh) {
  check_buffers(x, w, y, sh);
  if (y.empty()) return;
  const int crs = sh.c * sh.r * sh.s;
  if (crs > kConstantFloats) {
    throw std::invalid_argument("tiled: one filter (C·R·S = " + std::to_string(crs) +
                                " floats) does not fit in the 64 KB of constant memory");
  }
  // Four rows per thread where the image has them and the taller tile fits 48 KB of shared memory.
  const bool four_rows =
      sh.p() >= 4 * kTile &&
      sizeof(float) * tile_extent(4 * kTile, sh.r, sh.stride) * tile_extent(kTile, sh.s, sh.stride) <= 48 * 1024;
  const int chunk = kConstantFloats / crs;  // filters per launch
  for (int k0 = 0; k0 < sh.k; k0 += chunk) {
    const int k_count = sh.k - k0 < chunk ? sh.k - k0 : chunk;
    // Device to device, in stream order: the filters of this chunk into constant memory.
    GPULAB_CUDA_CHECK(cudaMemcpyToSymbolAsync(filters_constant, w.data() + static_cast<std::size_t>(k0) * crs,
                                              sizeof(float) * static_cast<std::size_t>(k_count) * crs, 0,
                                              cudaMemcpyDeviceToDevice));
    if (k_count >= 8) {
      if (four_rows)
        tiled_chunk<kBiasRelu, 8, 4>(x.data(), bias, y.data(), sh, k0, k_count);
      else
        tiled_chunk<kBiasRelu, 8, 1>(x.data(), bias, y.data(), sh, k0, k_count);
    } else {
      if (four_rows)
        tiled_chunk<kBiasRelu, 1, 4>(x.data(), bias, y.data(), sh, k0, k_count);
      else
        tiled_chunk<kBiasRelu, 1, 1>(x.data(), bias, y.data(), sh, k0, k_count);
    }
  }
}

}  // namespace

void tiled(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape) {
  tiled_launch<false>(x, w, nullptr, y, shape);
}

void fused_bias_relu(std::span<const float> x, std::span<const float> w, std::span<const float> bias,
                     std::span<float> y, const Shape& shape) {
  if (bias.size() != static_cast<std::size_t>(shape.k)) throw std::invalid_argument("conv: bias must hold K floats");
  tiled_launch<true>(x, w, bias.data(), y, shape);
}

// The separate pass: one thread per element, grid-stride.
__global__ void bias_relu_kernel(const float* bias, float* y, long count, int K, int PQ) {
  for (long i = long{blockIdx.x} * blockDim.x + threadIdx.x; i < count;
       i += static_cast<long>(gridDim.x) * blockDim.x) {
    y[i] = fmaxf(y[i] + bias[i / PQ % K], 0.0f);
  }
}

void bias_relu(std::span<const float> bias, std::span<float> y, const Shape& shape) {
  if (bias.size() != static_cast<std::size_t>(shape.k) || y.size() != shape.output_size()) {
    throw std::invalid_argument("bias_relu: bias must hold K floats and y N·K·P·Q");
  }
  if (y.empty()) return;
  const long count = static_cast<long>(y.size());
  bias_relu_kernel<<<dim3(grid_to_fill(y.size(), 256)), dim3(256)>>>(bias.data(), y.data(), count, shape.k,
                                                                     shape.p() * shape.q());
  check_launch("bias_relu_kernel", dim3(grid_to_fill(y.size(), 256)), dim3(256));
}

}  // namespace gpulab::conv
