// Layer norm over the rows of a matrix on the GPU (layer_norm.hpp): a ladder where each rung
// changes how the mean and variance are found and how often the row is read.
//
//   layer_norm_two_pass        a block per row, three reads: the mean, the variance, the outputs
//   layer_norm_sum_of_squares  Σx and Σx² in one pass — fast, and wrong at a large mean (on purpose)
//   layer_norm_welford_warp    a warp per row, one pass for both by Welford's update
//   layer_norm_registers       the row read once into registers, the two passes over them
//
// Run them: lesson18_layer_norm --shape 4096x8192 --backend gpu
// Like every kernel file, this one is plain CUDA and builds for the GPU and for the emulator.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/launch.cuh"
#include "transformer/layer_norm.hpp"
#include "transformer/row_reductions.cuh"
#include "transformer/row_split.cuh"

namespace gpulab::transformer {

namespace {

constexpr int kBlock = 256;        // threads a row, for the block-per-row rungs
constexpr int kWarpsPerBlock = 8;  // layer_norm_welford_warp: 8 rows a block
constexpr int kHeld = 8;           // layer_norm_registers: float4s a thread holds (cols ≤ 32768)

}  // namespace

// ---------------------------------------------------------------- device functions

// [snippet:welford]
// Welford's update (1962): a running count, mean and M2 = Σ(x − mean)², each new x moving the
// mean by its share of the difference. No term grows like x², so nothing cancels. Two partial
// results combine by Chan's formula, so lanes can each take part of a row and meet by shuffles.
struct Moments {
  float count = 0, mean = 0, m2 = 0;
};

__device__ inline void welford_add(Moments& a, float x) {
  a.count += 1.0f;
  const float d = x - a.mean;
  a.mean += d / a.count;
  a.m2 += d * (x - a.mean);
}

__device__ inline void welford_combine(Moments& a, const Moments& b) {
  const float count = a.count + b.count;
  if (count == 0.0f) return;
  const float d = b.mean - a.mean, share = b.count / count;
  a.mean += d * share;
  a.m2 += b.m2 + d * d * a.count * share;
  a.count = count;
}
// [/snippet]

__device__ inline float normalized(float x, float mean, float scale, float gamma, float beta) {
  return (x - mean) * scale * gamma + beta;
}

// ---------------------------------------------------------------- kernels

// [snippet:layer_norm_two_pass]
// A block per row, as softmax's block_row: the mean (a block sum), the variance around it (a
// second sum, of (x − μ)², which cannot cancel), then the outputs — the row read three times.
__global__ void layer_norm_two_pass_kernel(const float* x, const float* gamma, const float* beta, float* y,
                                           std::size_t cols) {
  __shared__ float partial[33];
  const float* in = x + std::size_t{blockIdx.x} * cols;
  float* out = y + std::size_t{blockIdx.x} * cols;
  float s = 0.0f;
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) s += in[c];
  const float mean = block_sum(s, partial) / static_cast<float>(cols);
  float q = 0.0f;
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) q += (in[c] - mean) * (in[c] - mean);
  const float scale = rsqrtf(block_sum(q, partial) / static_cast<float>(cols) + kLayerNormEpsilon);
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) {
    out[c] = normalized(in[c], mean, scale, gamma[c], beta[c]);
  }
}
// [/snippet]

// [snippet:layer_norm_sum_of_squares]
// The textbook shortcut: Σx and Σx² in one pass, σ² = Σx²/n − μ². With a mean of 100 and a
// spread of 1, Σx²/n ≈ 10^4 holds the variance in its last few bits: a float's rounding of 10^4
// (about 0.001) is already a part in a thousand of it, and σ² can even come out negative (NaN).
__global__ void layer_norm_sum_of_squares_kernel(const float* x, const float* gamma, const float* beta, float* y,
                                                 std::size_t cols) {
  __shared__ float partial[33];
  const float* in = x + std::size_t{blockIdx.x} * cols;
  float* out = y + std::size_t{blockIdx.x} * cols;
  float s = 0.0f, q = 0.0f;
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) s += in[c], q += in[c] * in[c];
  const float mean = block_sum(s, partial) / static_cast<float>(cols);
  const float variance = block_sum(q, partial) / static_cast<float>(cols) - mean * mean;
  const float scale = rsqrtf(variance + kLayerNormEpsilon);
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) {
    out[c] = normalized(in[c], mean, scale, gamma[c], beta[c]);
  }
}
// [/snippet]

// [snippet:layer_norm_welford_warp]
// What it adds: a warp per row, 8 rows a block; each lane keeps Welford's moments of its share,
// the lanes' moments meet by 5 rounds of shuffles (Chan's combination): one read for both
// statistics, the second for the outputs, no shared memory, no barrier.
__global__ void layer_norm_welford_warp_kernel(const float* x, const float* gamma, const float* beta, float* y,
                                               std::size_t rows, std::size_t cols) {
  const std::size_t r = std::size_t{blockIdx.x} * kWarpsPerBlock + threadIdx.x / 32;
  if (r >= rows) return;  // the whole warp leaves together: the shuffles below see all 32 lanes
  const unsigned lane = threadIdx.x % 32;
  const float* in = x + r * cols;
  Moments m;
  for (std::size_t c = lane; c < cols; c += 32) welford_add(m, in[c]);
  for (int offset = 16; offset > 0; offset /= 2) {
    const Moments other{__shfl_xor_sync(0xffffffffu, m.count, offset), __shfl_xor_sync(0xffffffffu, m.mean, offset),
                        __shfl_xor_sync(0xffffffffu, m.m2, offset)};
    welford_combine(m, other);
  }
  const float scale = rsqrtf(m.m2 / static_cast<float>(cols) + kLayerNormEpsilon);
  for (std::size_t c = lane; c < cols; c += 32) y[r * cols + c] = normalized(in[c], m.mean, scale, gamma[c], beta[c]);
}
// [/snippet]

// [snippet:layer_norm_registers]
// What it adds: the row read once, into registers (kHeld float4s a thread and, where a row does
// not start on 16 bytes, a few single floats: as softmax's row_in_registers), so the exact two
// passes — the mean, then Σ(x − μ)² — cost no memory traffic: x read once, y written once, γ and β
// from L2 (as float4s too where the row's float4s start on a column of a multiple of 4). Unrolled
// loops keep `held` in registers.
__global__ void __launch_bounds__(1024)
    layer_norm_registers_kernel(const float* x, const float* gamma, const float* beta, float* y, std::size_t cols) {
  __shared__ float partial[33];
  const HeldRow row = held_row(x, y, cols);
  const unsigned quads = row.split.quads, stride = blockDim.x;
  const float4* in = row.in4;
  float4* out = row.out4;
  const int column = row.column;
  const float single = column >= 0 ? row.in[column] : 0.0f;
  float4 held[kHeld];
  float s = single;
#pragma unroll
  for (int k = 0; k < kHeld; ++k) {
    const unsigned q = threadIdx.x + k * stride;
    held[k] = q < quads ? in[q] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    s += (held[k].x + held[k].y) + (held[k].z + held[k].w);
  }
  const float mean = block_sum(s, partial) / static_cast<float>(cols);
  float v = column >= 0 ? (single - mean) * (single - mean) : 0.0f;
#pragma unroll
  for (int k = 0; k < kHeld; ++k) {
    const float4 d = make_float4(held[k].x - mean, held[k].y - mean, held[k].z - mean, held[k].w - mean);
    if (threadIdx.x + k * stride < quads) v += (d.x * d.x + d.y * d.y) + (d.z * d.z + d.w * d.w);
  }
  const float scale = rsqrtf(block_sum(v, partial) / static_cast<float>(cols) + kLayerNormEpsilon);
  // γ and β of the float4 q: columns head + 4 q to head + 4 q + 3.
  const auto four = [&](const float* p, unsigned q) {
    const float* at = p + row.split.head + 4 * q;
    return row.split.head == 0 ? *reinterpret_cast<const float4*>(at) : make_float4(at[0], at[1], at[2], at[3]);
  };
#pragma unroll
  for (int k = 0; k < kHeld; ++k) {
    const unsigned q = threadIdx.x + k * stride;
    if (q < quads) {
      const float4 h = held[k], gq = four(gamma, q), bq = four(beta, q);
      out[q] = make_float4(normalized(h.x, mean, scale, gq.x, bq.x), normalized(h.y, mean, scale, gq.y, bq.y),
                           normalized(h.z, mean, scale, gq.z, bq.z), normalized(h.w, mean, scale, gq.w, bq.w));
    }
  }
  if (column >= 0) row.out[column] = normalized(single, mean, scale, gamma[column], beta[column]);
}
// [/snippet]

// ---------------------------------------------------------------- launchers

namespace {

void check_sizes(const LayerNormInputs& in, std::span<float> y, std::size_t rows, std::size_t cols) {
  if (in.x.size() != rows * cols || y.size() != rows * cols) {
    throw std::invalid_argument("layer_norm: x and y must hold rows x cols = " + std::to_string(rows * cols) +
                                " elements");
  }
  if (in.gamma.size() != cols || in.beta.size() != cols) {
    throw std::invalid_argument("layer_norm: gamma and beta must hold cols = " + std::to_string(cols) + " elements");
  }
  if (rows > 2147483647u) throw std::invalid_argument("layer_norm: at most 2^31 - 1 rows (a block a row)");
}

// A block a row: each launcher launches its kernel by its own name (not through a pointer), which
// is the name the emulator's counts and the app's Memory view give it.
dim3 block_per_row(const LayerNormInputs& in, std::span<float> y, std::size_t rows, std::size_t cols) {
  check_sizes(in, y, rows, cols);
  return dim3(static_cast<unsigned>(rows));
}

}  // namespace

void layer_norm_two_pass(LayerNormInputs in, std::span<float> y, std::size_t rows, std::size_t cols) {
  const dim3 grid = block_per_row(in, y, rows, cols), block(kBlock);
  if (y.empty()) return;
  layer_norm_two_pass_kernel<<<grid, block>>>(in.x.data(), in.gamma.data(), in.beta.data(), y.data(), cols);
  check_launch("layer_norm_two_pass_kernel", grid, block);
}

void layer_norm_sum_of_squares(LayerNormInputs in, std::span<float> y, std::size_t rows, std::size_t cols) {
  const dim3 grid = block_per_row(in, y, rows, cols), block(kBlock);
  if (y.empty()) return;
  layer_norm_sum_of_squares_kernel<<<grid, block>>>(in.x.data(), in.gamma.data(), in.beta.data(), y.data(), cols);
  check_launch("layer_norm_sum_of_squares_kernel", grid, block);
}

void layer_norm_welford_warp(LayerNormInputs in, std::span<float> y, std::size_t rows, std::size_t cols) {
  check_sizes(in, y, rows, cols);
  if (y.empty()) return;
  const dim3 grid(blocks_for(rows, kWarpsPerBlock)), block(32 * kWarpsPerBlock);
  layer_norm_welford_warp_kernel<<<grid, block>>>(in.x.data(), in.gamma.data(), in.beta.data(), y.data(), rows, cols);
  check_launch("layer_norm_welford_warp_kernel", grid, block);
}

void layer_norm_registers(LayerNormInputs in, std::span<float> y, std::size_t rows, std::size_t cols) {
  // Rows longer than the registers of a block hold, or arrays not alike past 16-byte boundaries
  // (the float4s of a row of x must be those of y, and γ and β must start on 16 bytes): Welford.
  const auto offset = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16; };
  if (cols > std::size_t{1024} * kHeld * 4 || offset(in.x.data()) != offset(y.data()) || offset(in.x.data()) != 0 ||
      offset(in.gamma.data()) != 0 || offset(in.beta.data()) != 0) {
    layer_norm_welford_warp(in, y, rows, cols);
    return;
  }
  // The fewest threads (at least a warp, at most 1024) that hold the row's float4s, kHeld each.
  unsigned threads = 32;
  while (cols / 4 > std::size_t{threads} * kHeld) threads *= 2;
  const dim3 grid = block_per_row(in, y, rows, cols), block(threads);
  if (y.empty()) return;
  layer_norm_registers_kernel<<<grid, block>>>(in.x.data(), in.gamma.data(), in.beta.data(), y.data(), cols);
  check_launch("layer_norm_registers_kernel", grid, block);
}

}  // namespace gpulab::transformer
