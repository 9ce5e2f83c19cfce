// Softmax over the rows of a matrix on the GPU, y = softmax(x) row by row: a ladder where each
// rung changes how a row's work is shared out and how often the row is read.
//
//   softmax_thread_row   a thread per row, three passes: the maximum, the sum, the outputs
//   softmax_block_row    a block per row: coalesced passes, reductions in shared memory
//   softmax_warp_row     a warp per row: reductions by shuffles
//   softmax_online       a block per row, the maximum and the sum in one pass (online softmax)
//   softmax_online_float4  the same with float4 accesses, the second read from L2
//   softmax_registers    the row read once into registers: one exponential an element
//
// Run them: lesson17_softmax --shape 4096x32768 --backend gpu
// Like every kernel file, this one is plain CUDA and builds for the GPU and for the emulator.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/launch.cuh"
#include "transformer/row_reductions.cuh"
#include "transformer/row_split.cuh"
#include "transformer/softmax.hpp"

namespace gpulab::transformer {

namespace {

constexpr int kBlock = 256;        // threads a row, for the block-per-row rungs
constexpr int kWarpsPerBlock = 8;  // softmax_warp_row: 8 rows a block
constexpr int kHeld = 8;           // softmax_registers: float4s a thread holds (rows ≤ 32768 floats)

}  // namespace

// ---------------------------------------------------------------- device functions

// [snippet:online_softmax_step]
// The online softmax (Milakov and Gimelshein, 2018): a running maximum m and a running sum s of
// e^(x − m). A new x above m rescales the sum to the new maximum; any other adds its term. Two
// partial results combine the same way, so threads can each take part of a row and meet in a
// reduction. −inf adds nothing (e^−inf = 0), and a row of only −inf ends with m = −inf, s = 0,
// whose outputs e^(−inf − (−inf)) / 0 are NaN, as PyTorch's are.
__device__ inline void online_add(float& m, float& s, float x) {
  if (x > m) {
    s = s * expf(m - x) + 1.0f;  // m = −inf, s = 0 at first: 0 · 0 + 1
    m = x;
  } else if (x != -INFINITY) {
    s += expf(x - m);
  }
}

__device__ inline void online_combine(float& m, float& s, float m2, float s2) {
  const float top = fmaxf(m, m2);
  const float a = m == -INFINITY ? 0.0f : s * expf(m - top);
  const float b = m2 == -INFINITY ? 0.0f : s2 * expf(m2 - top);
  m = top;
  s = a + b;
}
// [/snippet]

// A warp's online pair: each lane's (m, s) combined with its partner's, 5 rounds of shuffles.
__device__ inline void warp_online(float& m, float& s) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const float m2 = __shfl_xor_sync(0xffffffffu, m, offset), s2 = __shfl_xor_sync(0xffffffffu, s, offset);
    online_combine(m, s, m2, s2);
  }
}

// The block's online pair: each warp's by shuffles, then warp 0 combines the warps'.
__device__ void block_online(float& m, float& s, float* partial) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  warp_online(m, s);
  if (lane == 0) partial[warp] = m, partial[32 + warp] = s;
  __syncthreads();
  if (warp == 0) {
    float wm = lane < warps ? partial[lane] : -INFINITY, ws = lane < warps ? partial[32 + lane] : 0.0f;
    warp_online(wm, ws);
    if (lane == 0) partial[64] = wm, partial[65] = ws;
  }
  __syncthreads();
  m = partial[64];
  s = partial[65];
}

// Four outputs e^(x − m) / s at once.
__device__ inline float4 scaled(float4 v, float m, float inverse) {
  return make_float4(expf(v.x - m) * inverse, expf(v.y - m) * inverse, expf(v.z - m) * inverse,
                     expf(v.w - m) * inverse);
}

// ---------------------------------------------------------------- kernels

// [snippet:softmax_thread_row]
// A thread per row, three passes over it. Each pass reads the row in order — but a warp's 32
// threads are on 32 different rows, cols floats apart: every load is 32 sectors for 32 floats.
__global__ void softmax_thread_row_kernel(const float* x, float* y, std::size_t rows, std::size_t cols) {
  const std::size_t r = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* in = x + r * cols;
  float m = -INFINITY, s = 0.0f;
  for (std::size_t c = 0; c < cols; ++c) m = fmaxf(m, in[c]);
  for (std::size_t c = 0; c < cols; ++c) s += expf(in[c] - m);
  for (std::size_t c = 0; c < cols; ++c) y[r * cols + c] = expf(in[c] - m) / s;
}
// [/snippet]

// [snippet:softmax_block_row]
// What it adds: a block per row. Its 256 threads read the row together, consecutive threads
// consecutive floats (coalesced), each keeping a partial maximum, then a partial sum; the block
// combines the partials (block_reduce: shuffles within each warp, shared memory between them).
__global__ void softmax_block_row_kernel(const float* x, float* y, std::size_t cols) {
  __shared__ float partial[33];
  const float* in = x + std::size_t{blockIdx.x} * cols;
  float* out = y + std::size_t{blockIdx.x} * cols;
  float m = -INFINITY;
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, in[c]);
  m = block_reduce<true>(m, partial);
  float s = 0.0f;
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) s += expf(in[c] - m);
  s = block_reduce<false>(s, partial);
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(in[c] - m) / s;
}
// [/snippet]

// [snippet:softmax_warp_row]
// What it adds: a warp per row, 8 rows a block. The reductions are 5 shuffles each, with no
// shared memory and no barrier: for rows of a few thousand floats, enough for one warp.
__global__ void softmax_warp_row_kernel(const float* x, float* y, std::size_t rows, std::size_t cols) {
  const std::size_t r = std::size_t{blockIdx.x} * kWarpsPerBlock + threadIdx.x / 32;
  if (r >= rows) return;  // the whole warp leaves together: the shuffles below see all 32 lanes
  const unsigned lane = threadIdx.x % 32;
  const float* in = x + r * cols;
  float m = -INFINITY;
  for (std::size_t c = lane; c < cols; c += 32) m = fmaxf(m, in[c]);
  m = warp_max(m);
  float s = 0.0f;
  for (std::size_t c = lane; c < cols; c += 32) s += expf(in[c] - m);
  s = warp_sum(s);
  for (std::size_t c = lane; c < cols; c += 32) y[r * cols + c] = expf(in[c] - m) / s;
}
// [/snippet]

// [snippet:softmax_online]
// What it adds: the maximum and the sum in one pass (online_add), so the row is read twice, not
// three times — a third less traffic for a kernel that only moves memory.
__global__ void softmax_online_kernel(const float* x, float* y, std::size_t cols) {
  __shared__ float partial[66];
  const float* in = x + std::size_t{blockIdx.x} * cols;
  float* out = y + std::size_t{blockIdx.x} * cols;
  float m = -INFINITY, s = 0.0f;
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) online_add(m, s, in[c]);
  block_online(m, s, partial);
  const float inverse = 1.0f / s;
  for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(in[c] - m) * inverse;
}
// [/snippet]

// [snippet:softmax_online_float4]
// What it adds: 16-byte loads and stores (rows a multiple of 4 floats, so every row starts on a
// float4): a quarter of the memory instructions. The second pass reads the row again, from L2
// this time: with 1024 threads a row and two blocks a multiprocessor, the rows in flight (264 on
// an H200, 34 MB at 32768 floats) stay within its 50 MB of L2, so memory sees x once.
__global__ void softmax_online_float4_kernel(const float* x, float* y, std::size_t cols) {
  __shared__ float partial[66];
  const std::size_t quads = cols / 4;
  const auto* in = reinterpret_cast<const float4*>(x + std::size_t{blockIdx.x} * cols);
  auto* out = reinterpret_cast<float4*>(y + std::size_t{blockIdx.x} * cols);
  float m = -INFINITY, s = 0.0f;
  for (std::size_t q = threadIdx.x; q < quads; q += blockDim.x) {
    const float4 v = in[q];
    online_add(m, s, v.x), online_add(m, s, v.y), online_add(m, s, v.z), online_add(m, s, v.w);
  }
  block_online(m, s, partial);
  const float inverse = 1.0f / s;
  for (std::size_t q = threadIdx.x; q < quads; q += blockDim.x) out[q] = scaled(in[q], m, inverse);
}
// [/snippet]

// [snippet:softmax_registers]
// What it adds: the row read once, into registers (each thread kHeld float4s of it, up to 32768
// floats with 1024 threads), and then no online softmax at all: the maximum from the registers,
// then e^(x − m) computed once into the registers and summed, then each value scaled — one
// exponential an element instead of two. Rows of any length: where a row does not start on 16
// bytes, a few single floats before and after its float4s (row_split.cuh). The arrays are indexed
// by unrolled loops only, so the compiler keeps them in registers (a run-time index would put them
// in local memory); __launch_bounds__(1024) holds the compiler to the 64 registers a thread of a
// 1024-thread block may have (without it the launch is refused: "too many resources requested").
__global__ void __launch_bounds__(1024) softmax_registers_kernel(const float* x, float* y, std::size_t cols) {
  __shared__ float partial[33];
  const HeldRow row = held_row(x, y, cols);
  const unsigned quads = row.split.quads, stride = blockDim.x;
  const float4* in = row.in4;
  float4* out = row.out4;
  const int column = row.column;
  float single = column >= 0 ? row.in[column] : -INFINITY;
  float4 held[kHeld];
  float m = single;
#pragma unroll
  for (int k = 0; k < kHeld; ++k) {
    const unsigned q = threadIdx.x + k * stride;
    held[k] = q < quads ? in[q] : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
    m = fmaxf(m, fmaxf(fmaxf(held[k].x, held[k].y), fmaxf(held[k].z, held[k].w)));
  }
  m = block_reduce<true>(m, partial);
  single = expf(single - m);  // 0 where the thread holds none
  float s = single;
#pragma unroll
  for (int k = 0; k < kHeld; ++k) {
    held[k] = make_float4(expf(held[k].x - m), expf(held[k].y - m), expf(held[k].z - m), expf(held[k].w - m));
    if (threadIdx.x + k * stride < quads) s += (held[k].x + held[k].y) + (held[k].z + held[k].w);
  }
  const float inverse = 1.0f / block_reduce<false>(s, partial);
#pragma unroll
  for (int k = 0; k < kHeld; ++k) {
    const unsigned q = threadIdx.x + k * stride;
    if (q < quads)
      out[q] = make_float4(held[k].x * inverse, held[k].y * inverse, held[k].z * inverse, held[k].w * inverse);
  }
  if (column >= 0) row.out[column] = single * inverse;
}
// [/snippet]

// ---------------------------------------------------------------- launchers

namespace {

void check_sizes(std::span<const float> x, std::span<float> y, std::size_t rows, std::size_t cols) {
  if (x.size() != rows * cols || y.size() != rows * cols) {
    throw std::invalid_argument("softmax: x and y must hold rows x cols = " + std::to_string(rows * cols) +
                                " elements");
  }
  if (rows > 2147483647u) throw std::invalid_argument("softmax: at most 2^31 - 1 rows (a block a row)");
}

}  // namespace

void softmax_thread_row(std::span<const float> x, std::span<float> y, std::size_t rows, std::size_t cols) {
  check_sizes(x, y, rows, cols);
  if (y.empty()) return;
  const dim3 grid(blocks_for(rows, kBlock)), block(kBlock);
  softmax_thread_row_kernel<<<grid, block>>>(x.data(), y.data(), rows, cols);
  check_launch("softmax_thread_row_kernel", grid, block);
}

void softmax_block_row(std::span<const float> x, std::span<float> y, std::size_t rows, std::size_t cols) {
  check_sizes(x, y, rows, cols);
  if (y.empty()) return;
  const dim3 grid(static_cast<unsigned>(rows)), block(kBlock);
  softmax_block_row_kernel<<<grid, block>>>(x.data(), y.data(), cols);
  check_launch("softmax_block_row_kernel", grid, block);
}

void softmax_warp_row(std::span<const float> x, std::span<float> y, std::size_t rows, std::size_t cols) {
  check_sizes(x, y, rows, cols);
  if (y.empty()) return;
  const dim3 grid(blocks_for(rows, kWarpsPerBlock)), block(32 * kWarpsPerBlock);
  softmax_warp_row_kernel<<<grid, block>>>(x.data(), y.data(), rows, cols);
  check_launch("softmax_warp_row_kernel", grid, block);
}

void softmax_online(std::span<const float> x, std::span<float> y, std::size_t rows, std::size_t cols) {
  check_sizes(x, y, rows, cols);
  if (y.empty()) return;
  const dim3 grid(static_cast<unsigned>(rows)), block(kBlock);
  softmax_online_kernel<<<grid, block>>>(x.data(), y.data(), cols);
  check_launch("softmax_online_kernel", grid, block);
}

void softmax_online_float4(std::span<const float> x, std::span<float> y, std::size_t rows, std::size_t cols) {
  check_sizes(x, y, rows, cols);
  if (y.empty()) return;
  if (cols % 4 != 0) {  // rows that do not start on a float4: the scalar rung does them
    softmax_online(x, y, rows, cols);
    return;
  }
  const dim3 grid(static_cast<unsigned>(rows)), block(cols >= 4 * 1024 ? 1024 : kBlock);
  softmax_online_float4_kernel<<<grid, block>>>(x.data(), y.data(), cols);
  check_launch("softmax_online_float4_kernel", grid, block);
}

void softmax_registers(std::span<const float> x, std::span<float> y, std::size_t rows, std::size_t cols) {
  check_sizes(x, y, rows, cols);
  if (y.empty()) return;
  // Rows longer than the registers of a block hold, or x and y not alike past 16-byte boundaries
  // (the float4s of a row of x must be those of y): the online rungs.
  const auto offset = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16; };
  if (cols > std::size_t{1024} * kHeld * 4 || offset(x.data()) != offset(y.data())) {
    softmax_online_float4(x, y, rows, cols);
    return;
  }
  // The fewest threads (at least a warp, at most 1024) that hold the row's float4s, kHeld each.
  unsigned threads = 32;
  while (cols / 4 > std::size_t{threads} * kHeld) threads *= 2;
  const dim3 grid(static_cast<unsigned>(rows)), block(threads);
  softmax_registers_kernel<<<grid, block>>>(x.data(), y.data(), cols);
  check_launch("softmax_registers_kernel", grid, block);
}

}  // namespace gpulab::transformer
