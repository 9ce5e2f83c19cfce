// The convolutions as implicit GEMMs. Each of the three — the forward pass, the gradient of the
// input, the gradient of the weights — is a matrix product (lesson 06's im2col), computed without
// storing the im2col matrix whole: each block gathers the piece it needs into shared memory and
// multiplies it there, every sum in FP32. One kernel serves two steps:
//   - the mixed step's (FP16 arrays): the pieces in FP16, multiplied on the tensor cores in
//     16 × 16 × 16 products through WMMA (lesson 09);
//   - the FP32 step's (float arrays): the pieces in FP32, multiplied on the CUDA cores, each
//     thread 2 × 4 outputs in registers (lesson 05's register tiles).
//
//   conv_gemm_kernel         out[m][q] = Σ over kk of W[m][kk] · X[kk][q], q a position (image,
//                            pixel) and kk a (channel, tap) pair: the forward pass (m a filter,
//                            + bias, ReLU); and, with the filters flipped and swapped with the
//                            channels and the output's gradient for x, the gradient of the input
//                            (the transposed convolution; m a channel, kk a (filter, tap))
//   conv_weight_gemm_kernel  dW[k][kk] = Σ over q of dz[k][q] · X[q][kk], and db[k] from a column
//                            of ones; the positions cut in shares, which cnn_layers.cu's
//                            conv_grad_shares_kernel adds in a fixed order
#include <cuda_fp16.h>
#include <mma.h>

#include <algorithm>
#include <type_traits>

#include "cnn/cnn_gpu.hpp"
#include "common/launch.cuh"
#include "common/stored.cuh"

namespace gpulab::cnn {

namespace wmma = nvcuda::wmma;

namespace {

// A block's tile of the output (kRows × kCols) and the depth of each of its k-steps. Eight warps,
// each one 16 × 16 piece of the tile: one accumulator. (Four warps of two accumulators each did
// the same multiplies, but each thread gathered twice the values, and with their addresses needed
// so many registers that an SM held too few warps to hide the loads' latency.)
constexpr int kRows = 32, kCols = 64, kDepth = 32;
constexpr int kWarpsN = kCols / 16, kWarps = 2 * kWarpsN, kThreads = 32 * kWarps;
// Who gathers what: in conv_gemm_kernel a thread keeps one column of X's piece (kDepthPerThread
// consecutive rows of it; of the output, rows kRowSteps apart) and, at lane l, column l of W's
// (kRowsPerThread rows, one per warp apart); in conv_weight_gemm_kernel it keeps position l of a
// step (kRowsPerThread values of dz, kColsPerThread columns of X).
constexpr int kRowSteps = kThreads / kCols, kDepthPerThread = kDepth / kRowSteps;
constexpr int kRowsPerThread = kRows / kWarps, kColsPerThread = kCols / kWarps;
static_assert(kThreads % kCols == 0 && kDepth == 32, "a thread keeps one column of X's piece and of W's");
constexpr int kLdC = kCols + 4;

// What a block holds in shared memory: one k-step's pieces of the two operands (E: __half or
// float), and the output tile the sums go through on their way out. Rows padded by 16 bytes (8
// halves, 4 floats), so the rows one load reads start in different banks; every row still starts
// 32 bytes aligned, as WMMA needs, and 16, as a float4 does.
template <typename E>
struct Tiles {
  static constexpr int kLdA = kDepth + 16 / sizeof(E), kLdB = kCols + 16 / sizeof(E);
  E a[kRows][kLdA];
  E b[kDepth][kLdB];
  float c[kRows][kLdC];
};

// A thread's running sums. On the tensor cores the warp's 16 × 16 piece of the output is one
// accumulator fragment; on the CUDA cores each thread keeps 2 rows × 4 columns of it.
struct TensorCoreSums {
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> piece;
};
struct CudaCoreSums {
  float v[2][4];
};
template <typename E>
using Sums = std::conditional_t<std::is_same_v<E, __half>, TensorCoreSums, CudaCoreSums>;

__device__ void clear(TensorCoreSums& s) { wmma::fill_fragment(s.piece, 0.0f); }
__device__ void clear(CudaCoreSums& s) {
#pragma unroll
  for (int i = 0; i < 2; ++i) {
#pragma unroll
    for (int j = 0; j < 4; ++j) s.v[i][j] = 0.0f;
  }
}

// [snippet:cnn_tensor_core_step]
// One k-step on the tensor cores: the warp's 16 × 16 piece of the output gets the product of its
// 16 rows of A and its 16 columns of B added — kDepth / 16 products of 16 × 16 × 16, one
// instruction each.
__device__ void multiply_step(const Tiles<__half>& t, TensorCoreSums& s) {
  const int warp = int(threadIdx.x) / 32, half = warp / kWarpsN, quarter = warp % kWarpsN;
  for (int p = 0; p < kDepth; p += 16) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::load_matrix_sync(a, &t.a[half * 16][p], Tiles<__half>::kLdA);
    wmma::load_matrix_sync(b, &t.b[p][quarter * 16], Tiles<__half>::kLdB);
    wmma::mma_sync(s.piece, a, b, s.piece);
  }
}
// [/snippet]

// [snippet:cnn_cuda_core_step]
// The same k-step on the CUDA cores: each thread's 2 × 4 outputs (rows r, r + 1; columns c to
// c + 3) get kDepth products each — per k, two values of A (each read by 16 threads at once: a
// broadcast), four of B in one float4, eight FMAs.
__device__ void multiply_step(const Tiles<float>& t, CudaCoreSums& s) {
  const int r = int(threadIdx.x) / 16 * 2, c = int(threadIdx.x) % 16 * 4;
#pragma unroll
  for (int k = 0; k < kDepth; ++k) {
    const float a[2] = {t.a[r][k], t.a[r + 1][k]};
    const float4 b4 = *reinterpret_cast<const float4*>(&t.b[k][c]);
    const float b[4] = {b4.x, b4.y, b4.z, b4.w};
#pragma unroll
    for (int i = 0; i < 2; ++i) {
#pragma unroll
      for (int j = 0; j < 4; ++j) s.v[i][j] = fmaf(a[i], b[j], s.v[i][j]);
    }
  }
}
// [/snippet]
static_assert(kThreads / 16 * 2 == kRows && 16 * 4 == kCols, "the CUDA cores' threads cover the tile in 2 × 4 pieces");

// The sums into the shared output tile, for every thread of the block to read.
__device__ void store_tile(Tiles<__half>& t, const TensorCoreSums& s) {
  const int warp = int(threadIdx.x) / 32;
  wmma::store_matrix_sync(&t.c[warp / kWarpsN * 16][warp % kWarpsN * 16], s.piece, kLdC, wmma::mem_row_major);
  __syncthreads();
}
__device__ void store_tile(Tiles<float>& t, const CudaCoreSums& s) {
  const int r = int(threadIdx.x) / 16 * 2, c = int(threadIdx.x) % 16 * 4;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    *reinterpret_cast<float4*>(&t.c[r + i][c]) = make_float4(s.v[i][0], s.v[i][1], s.v[i][2], s.v[i][3]);
  }
  __syncthreads();
}

// The im2col matrix, read where it lies: its element X[kk][q], kk = (channel c, tap t), is the
// input that tap t of the 3 × 3 window around position q's pixel reads in plane c — 0 where the
// tap falls outside the image (padding 1). Reading it costs integer arithmetic, not memory, so
// the gathers below find as much as they can once: a position's taps that fall inside (a mask),
// and, from one (c, t), the next pair's distance from the pixel without dividing again.

// Bit t (tap t = 3 · row + column of the window) set where pixel (i, j)'s tap t is inside.
__device__ unsigned taps_inside(int i, int j, int side) {
  const unsigned rows = (i > 0 ? 1u : 0u) | 2u | (i + 1 < side ? 4u : 0u);
  const unsigned cols = (j > 0 ? 1u : 0u) | 2u | (j + 1 < side ? 4u : 0u);
  return (rows & 1u ? cols : 0u) | (rows & 2u ? cols << 3 : 0u) | (rows & 4u ? cols << 6 : 0u);
}

// Where (c, tap) is read, from the pixel's own place in plane 0.
__device__ int tap_offset(int c, int tap, int side, int plane) {
  return c * plane + (tap / 3 - 1) * side + tap % 3 - 1;
}

// The im2col column of one position, kk after kk: (c, tap) and its offset, stepped without a division.
struct TapWalk {
  int tap, offset;
  __device__ TapWalk(int kk, int side, int plane) : tap(kk % 9), offset(tap_offset(kk / 9, kk % 9, side, plane)) {}
  __device__ void next(int side, int plane) {
    // Along a row of the window 1 to the right; at a row's end down one and back 2; after tap 8
    // the next plane's tap 0.
    offset += 1 + (tap % 3 == 2 ? side - 3 : 0) + (tap == 8 ? plane - 3 * side : 0);
    tap = tap == 8 ? 0 : tap + 1;
  }
};

// [snippet:cnn_implicit_gemm]
// out[n][m][p] for the block's 32 rows m and 64 positions q = (n, p): for each k-step of 32
// (channel, tap) pairs kk, the block gathers W's 32 × 32 piece and X's 32 × 64 piece — X[kk][q],
// the input tap kk of position q reads, the im2col matrix's element — into shared memory, and
// multiplies them (tensor cores or CUDA cores: multiply_step). Forward (kTransposed false): m a
// filter, `inner` the channels, W[m][kk] = w[m][c][tap]; then + bias, ReLU. The gradient of the
// input (kTransposed): m a channel, `inner` the filters, W[m][kk] = w[k][m][8 − tap] (the filter
// turned by 180°), and src the gradient of the output.
// The gathering, not the multiplying, is the work: integer arithmetic to find each value, and its
// loads' latency. Each thread keeps one column of X — one position, its image, pixel and taps
// inside found once (the only divisions by a variable) — and gathers 8 consecutive kk of it a
// step, walking the taps; and one column of W's piece. It gathers the next k-step's values into
// registers while this one is multiplied.
template <typename In, typename E, bool kTransposed>
__global__ void __launch_bounds__(kThreads)
    conv_gemm_kernel(const In* __restrict__ src, const E* __restrict__ w, const E* __restrict__ bias,
                     E* __restrict__ out, int batch, int rows, int inner, int side) {
  __shared__ __align__(32) Tiles<E> t;
  const int plane = side * side, depth = inner * 9, m0 = int(blockIdx.y) * kRows;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int column = int(threadIdx.x) % kCols, first_row = int(threadIdx.x) / kCols * kDepthPerThread;
  const long q = long(blockIdx.x) * kCols + column;  // this thread's position in X
  const bool inside = q < long(batch) * plane;
  const long n = inside ? q / plane : 0;
  const int p = inside ? int(q - n * plane) : 0, i = p / side, j = p % side;
  const unsigned taps = inside ? taps_inside(i, j, side) : 0u;
  const In* pixel = src + n * inner * plane + p;  // channel 0's pixel; the taps are offsets from it
  E a[kRowsPerThread], b[kDepthPerThread];        // the next k-step's values, already as the tiles hold them
  const auto gather = [&](int k0) {
    const int kk = k0 + lane;
    // This lane's column of W's piece: where row m's element is, m · step further.
    const int w_first = kTransposed ? (kk / 9 * rows) * 9 + 8 - kk % 9 : kk, w_step = kTransposed ? 9 : depth;
#pragma unroll
    for (int it = 0; it < kRowsPerThread; ++it) {
      const int m = m0 + warp + it * kWarps;
      a[it] = stored_as<E>(m < rows && kk < depth ? as_float(w[w_first + m * w_step]) : 0.0f);
    }
    TapWalk walk(k0 + first_row, side, plane);
#pragma unroll
    for (int it = 0; it < kDepthPerThread; ++it) {
      const bool taken = k0 + first_row + it < depth && (taps >> walk.tap & 1u);
      b[it] = stored_as<E>(taken ? as_float(pixel[walk.offset]) : 0.0f);
      walk.next(side, plane);
    }
  };
  Sums<E> sums;
  clear(sums);
  gather(0);
  for (int k0 = 0; k0 < depth; k0 += kDepth) {
#pragma unroll
    for (int it = 0; it < kRowsPerThread; ++it) t.a[warp + it * kWarps][lane] = a[it];
#pragma unroll
    for (int it = 0; it < kDepthPerThread; ++it) t.b[first_row + it][column] = b[it];
    __syncthreads();
    if (k0 + kDepth < depth) gather(k0 + kDepth);  // in flight while this step is multiplied
    multiply_step(t, sums);
    __syncthreads();  // every warp done with this step's pieces before the next overwrites them
  }
  store_tile(t, sums);
  if (!inside) return;
  E* to = out + n * rows * plane + p;
  for (int r = int(threadIdx.x) / kCols; r < kRows && m0 + r < rows; r += kRowSteps) {
    const int m = m0 + r;
    float z = t.c[r][column];
    if (!kTransposed) z = fmaxf(z + as_float(bias[m]), 0.0f);
    to[m * plane] = stored_as<E>(z);
  }
}
// [/snippet]

// dW[k][kk] = Σ over the share's positions q of dz[k][q] · X[q][kk] (X the im2col matrix, as
// above, with a last column of ones: Σ dz[k][q], the bias's gradient): the block's 32 filters k
// and 64 columns kk, its share of the positions in k-steps of 32. Each thread keeps 8 columns of
// X for the whole share (where each reads: found once) and takes one position a step (stepped
// from the last, not divided out), gathering its 4 values of dz and 8 of X, the next step's while
// this one is multiplied. The share's totals go to `partial` as add_gradient_shares reads them:
// 10 per (filter, channel, share), the taps' then the bias's (for channel 0; the other channels'
// tenth is 0).
// (3 blocks an SM: at most 85 registers a thread; the FP32 version needs more, without spilling.)
template <typename E>
constexpr int kWeightBlocksPerSm = std::is_same_v<E, __half> ? 3 : 2;
template <typename In, typename E>
__global__ void __launch_bounds__(kThreads, kWeightBlocksPerSm<E>)
    conv_weight_gemm_kernel(const In* __restrict__ x, const E* __restrict__ dz, float* __restrict__ partial, int batch,
                            int channels, int filters, int side, long per_share) {
  __shared__ __align__(32) Tiles<E> t;
  const int plane = side * side, width = channels * 9;  // column `width`: the bias's ones
  const int share = int(blockIdx.x), shares = int(gridDim.x);
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int m0 = int(blockIdx.y) * kRows, col0 = int(blockIdx.z) * kCols;
  const long first = share * per_share, last = min(long(batch) * plane, first + per_share);
  // This thread's columns of X: each one's offset from the pixel, times 16, plus what it reads —
  // a tap (0 … 8), the bias's 1 (9), or nothing past the last column (15).
  constexpr int kOne = 9, kNothing = 15;
  int column[kColsPerThread];
#pragma unroll
  for (int it = 0; it < kColsPerThread; ++it) {
    const int col = col0 + warp + it * kWarps;
    column[it] = col < width    ? tap_offset(col / 9, col % 9, side, plane) * 16 + col % 9
                 : col == width ? kOne
                                : kNothing;
  }
  long n = 0;  // this thread's position q = first + lane + 32 · step: image n, pixel p
  int p = 0;
  if (first + lane < last) n = (first + lane) / plane, p = int(first + lane - n * plane);
  E a[kRowsPerThread], b[kColsPerThread];  // the next k-step's values, already as the tiles hold them
  const auto gather = [&](long q0) {
    const bool inside = q0 + lane < last;
    const unsigned reads = inside ? taps_inside(p / side, p % side, side) | 1u << kOne : 0u;
    const In* pixel = x + n * channels * plane + p;
    const E* dz_pixel = dz + n * filters * plane + p;
#pragma unroll
    for (int it = 0; it < kRowsPerThread; ++it) {
      const int k = m0 + warp + it * kWarps;
      a[it] = stored_as<E>(inside && k < filters ? as_float(dz_pixel[k * plane]) : 0.0f);
    }
#pragma unroll
    for (int it = 0; it < kColsPerThread; ++it) {
      const int what = column[it] & 15;
      b[it] = stored_as<E>(!(reads >> what & 1u) ? 0.0f : what == kOne ? 1.0f : as_float(pixel[column[it] >> 4]));
    }
    for (p += kDepth; p >= plane; p -= plane) ++n;  // the next step's position
  };
  Sums<E> sums;
  clear(sums);
  gather(first);
  for (long q0 = first; q0 < last; q0 += kDepth) {
#pragma unroll
    for (int it = 0; it < kRowsPerThread; ++it) t.a[warp + it * kWarps][lane] = a[it];
#pragma unroll
    for (int it = 0; it < kColsPerThread; ++it) t.b[lane][warp + it * kWarps] = b[it];
    __syncthreads();
    if (q0 + kDepth < last) gather(q0 + kDepth);
    multiply_step(t, sums);
    __syncthreads();
  }
  store_tile(t, sums);
  for (int e = int(threadIdx.x); e < kRows * kCols; e += kThreads) {
    const int k = m0 + e / kCols, col = col0 + e % kCols;
    if (k >= filters || col > width) continue;
    const float total = t.c[e / kCols][e % kCols];
    const int c = col == width ? 0 : col / 9, q = col == width ? 9 : col % 9;
    float* to = partial + ((std::size_t(k) * channels + c) * shares + share) * 10;
    to[q] = total;
    if (q == 0 && c > 0) to[9] = 0.0f;  // only channel 0 carries the bias's total
  }
}

// [snippet:cnn_gemm_tiles]
// The linear layers' GEMMs on the same tiles: C (m × n) = op(A) · op(B), row-major, A stored
// k × m where TA, B stored n × k where TB (mlp::gemm_tiled's convention); the block's 32 × 64 tile
// of C in k-steps of 32, k split in slices by blockIdx.z (each slice's product written m × n
// further on, for the caller to add). Each piece is gathered so that a warp's 32 loads are
// consecutive in memory: along k where a matrix is stored with k fastest, else along its rows or
// columns (and then written into the tile crosswise).
template <bool TA, bool TB, typename E, typename C>
__global__ void __launch_bounds__(kThreads) gemm_tiles_kernel(const E* __restrict__ a, const E* __restrict__ b,
                                                              C* __restrict__ c, int m, int n, int k, int k_slice) {
  __shared__ __align__(32) Tiles<E> t;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int row_of_b = int(threadIdx.x) / kCols * kDepthPerThread, column = int(threadIdx.x) % kCols;
  const int m0 = int(blockIdx.y) * kRows, n0 = int(blockIdx.x) * kCols;
  const int k_begin = int(blockIdx.z) * k_slice, k_end = min(k, k_begin + k_slice);
  E av[kRowsPerThread], bv[kColsPerThread];  // the next k-step's values
  const auto gather = [&](int k0) {
#pragma unroll
    for (int it = 0; it < kRowsPerThread; ++it) {  // A's piece: row m0 + r, depth k0 + d
      const int r = TA ? lane : warp + it * kWarps, d = TA ? warp + it * kWarps : lane;
      const bool in = m0 + r < m && k0 + d < k_end;
      av[it] = stored_as<E>(
          in ? as_float(TA ? a[std::size_t(k0 + d) * m + m0 + r] : a[std::size_t(m0 + r) * k + k0 + d]) : 0.0f);
    }
#pragma unroll
    for (int it = 0; it < kColsPerThread; ++it) {  // B's piece: depth k0 + d, column n0 + col
      const int d = TB ? lane : row_of_b + it, col = TB ? warp + it * kWarps : column;
      const bool in = k0 + d < k_end && n0 + col < n;
      bv[it] = stored_as<E>(
          in ? as_float(TB ? b[std::size_t(n0 + col) * k + k0 + d] : b[std::size_t(k0 + d) * n + n0 + col]) : 0.0f);
    }
  };
  Sums<E> sums;
  clear(sums);
  gather(k_begin);
  for (int k0 = k_begin; k0 < k_end; k0 += kDepth) {
#pragma unroll
    for (int it = 0; it < kRowsPerThread; ++it) {
      if (TA)
        t.a[lane][warp + it * kWarps] = av[it];
      else
        t.a[warp + it * kWarps][lane] = av[it];
    }
#pragma unroll
    for (int it = 0; it < kColsPerThread; ++it) {
      if (TB)
        t.b[lane][warp + it * kWarps] = bv[it];
      else
        t.b[row_of_b + it][column] = bv[it];
    }
    __syncthreads();
    if (k0 + kDepth < k_end) gather(k0 + kDepth);
    multiply_step(t, sums);
    __syncthreads();
  }
  store_tile(t, sums);
  C* slice = c + std::size_t(blockIdx.z) * m * n;
  for (int e = int(threadIdx.x); e < kRows * kCols; e += kThreads) {
    const int row = m0 + e / kCols, col = n0 + e % kCols;
    if (row < m && col < n) slice[std::size_t(row) * n + col] = stored_as<C>(t.c[e / kCols][e % kCols]);
  }
}
// [/snippet]
static_assert(kThreads / kCols * kDepthPerThread == kDepth && kColsPerThread * kWarps == kCols, "B's piece covered");

cudaStream_t as_stream(void* stream) { return static_cast<cudaStream_t>(stream); }

template <typename In, typename E>
void launch_forward(const In* x, const E* w, const E* b, E* y, int batch, int channels, int filters, int side,
                    void* stream) {
  const long positions = long(batch) * side * side;
  if (positions == 0 || filters == 0) return;
  const dim3 grid(static_cast<unsigned int>((positions + kCols - 1) / kCols),
                  static_cast<unsigned int>((filters + kRows - 1) / kRows));
  conv_gemm_kernel<In, E, false><<<grid, kThreads, 0, as_stream(stream)>>>(x, w, b, y, batch, filters, channels, side);
  check_launch("conv_gemm_kernel", grid, kThreads);
}

template <typename In, typename E>
void launch_backward(const In* x, const E* w, const E* dz, float* dw, float* db, E* dx, float* partial, int batch,
                     int channels, int filters, int side, void* stream) {
  if (filters == 0 || channels == 0) return;
  const long positions = long(batch) * side * side;
  const int wanted = implicit_gemm_shares(batch, side, channels, filters);
  const long per_share = std::max(1L, (positions + wanted - 1) / wanted);
  const int shares = int(std::max(1L, (positions + per_share - 1) / per_share));
  const dim3 grid(static_cast<unsigned int>(shares), static_cast<unsigned int>((filters + kRows - 1) / kRows),
                  static_cast<unsigned int>((channels * 9 + 1 + kCols - 1) / kCols));
  conv_weight_gemm_kernel<<<grid, kThreads, 0, as_stream(stream)>>>(x, dz, partial, batch, channels, filters, side,
                                                                    per_share);
  check_launch("conv_weight_gemm_kernel", grid, kThreads);
  add_gradient_shares(partial, dw, db, channels, filters, shares, stream);
  if (dx == nullptr || positions == 0) return;
  const dim3 data_grid(static_cast<unsigned int>((positions + kCols - 1) / kCols),
                       static_cast<unsigned int>((channels + kRows - 1) / kRows));
  conv_gemm_kernel<E, E, true>
      <<<data_grid, kThreads, 0, as_stream(stream)>>>(dz, w, nullptr, dx, batch, channels, filters, side);
  check_launch("conv_gemm_kernel (transposed)", data_grid, kThreads);
}

template <typename E, typename C>
void launch_gemm_tiles(bool ta, bool tb, const E* a, const E* b, C* c, int m, int n, int k, void* stream, int splits) {
  if (m == 0 || n == 0) return;
  const int k_slice = std::max(1, (k + splits - 1) / splits);
  const dim3 grid(static_cast<unsigned int>((n + kCols - 1) / kCols),
                  static_cast<unsigned int>((m + kRows - 1) / kRows), static_cast<unsigned int>(splits));
  const auto launch = [&](auto kernel) {
    kernel<<<grid, kThreads, 0, as_stream(stream)>>>(a, b, c, m, n, k, k_slice);
    check_launch("gemm_tiles_kernel", grid, kThreads);
  };
  if (ta) {
    tb ? launch(gemm_tiles_kernel<true, true, E, C>) : launch(gemm_tiles_kernel<true, false, E, C>);
  } else {
    tb ? launch(gemm_tiles_kernel<false, true, E, C>) : launch(gemm_tiles_kernel<false, false, E, C>);
  }
}

}  // namespace

int gemm_tiles_splits(int m, int n, int k) {
  const int tiles = ((m + kRows - 1) / kRows) * ((n + kCols - 1) / kCols);
  return std::max(1, std::min(512 / std::max(1, tiles), k / 128));
}

void gemm_tiles(bool ta, bool tb, const float* a, const float* b, float* c, int m, int n, int k, void* stream,
                int splits) {
  launch_gemm_tiles(ta, tb, a, b, c, m, n, k, stream, splits);
}

void gemm_tiles(bool ta, bool tb, const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k,
                void* stream, int splits) {
  launch_gemm_tiles(ta, tb, kernel_view(a), kernel_view(b), c, m, n, k, stream, splits);
}

void gemm_tiles(bool ta, bool tb, const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* c, int m, int n, int k,
                void* stream, int splits) {
  launch_gemm_tiles(ta, tb, kernel_view(a), kernel_view(b), kernel_view(c), m, n, k, stream, splits);
}

void conv3x3_relu_implicit_gemm(const float* x, const float* w, const float* b, float* y, int batch, int channels,
                                int filters, int side, void* stream) {
  launch_forward(x, w, b, y, batch, channels, filters, side, stream);
}

void conv3x3_relu_implicit_gemm(const float* x, const std::uint16_t* w, const std::uint16_t* b, std::uint16_t* y,
                                int batch, int channels, int filters, int side, void* stream) {
  launch_forward(x, kernel_view(w), kernel_view(b), kernel_view(y), batch, channels, filters, side, stream);
}

void conv3x3_relu_implicit_gemm(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* b,
                                std::uint16_t* y, int batch, int channels, int filters, int side, void* stream) {
  launch_forward(kernel_view(x), kernel_view(w), kernel_view(b), kernel_view(y), batch, channels, filters, side,
                 stream);
}

void conv3x3_backward_implicit_gemm(const float* x, const float* w, const float* dz, float* dw, float* db, float* dx,
                                    float* scratch, int batch, int channels, int filters, int side, void* stream) {
  launch_backward(x, w, dz, dw, db, dx, scratch, batch, channels, filters, side, stream);
}

void conv3x3_backward_implicit_gemm(const float* x, const std::uint16_t* w, const std::uint16_t* dz, float* dw,
                                    float* db, std::uint16_t* dx, float* scratch, int batch, int channels, int filters,
                                    int side, void* stream) {
  launch_backward(x, kernel_view(w), kernel_view(dz), dw, db, kernel_view(dx), scratch, batch, channels, filters, side,
                  stream);
}

void conv3x3_backward_implicit_gemm(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* dz, float* dw,
                                    float* db, std::uint16_t* dx, float* scratch, int batch, int channels, int filters,
                                    int side, void* stream) {
  launch_backward(kernel_view(x), kernel_view(w), kernel_view(dz), dw, db, kernel_view(dx), scratch, batch, channels,
                  filters, side, stream);
}

}  // namespace gpulab::cnn
