// The mixed step's convolutions on the tensor cores. Each of the three — the forward pass, the
// gradient of the input, the gradient of the weights — is a matrix product (lesson 06's im2col),
// computed as an implicit GEMM: the im2col matrix is never stored whole; each block gathers the
// piece it needs into shared memory, in FP16, and hands 16 × 16 × 16 products to the tensor cores
// through WMMA (lesson 09), every sum in FP32.
//
//   conv_gemm_kernel         out[m][q] = Σ over kk of W[m][kk] · X[kk][q], q a position (image,
//                            pixel) and kk a (channel, tap) pair: the forward pass (m a filter,
//                            + bias, ReLU); and, with the filters flipped and swapped with the
//                            channels and the output's gradient for x, the gradient of the input
//                            (the transposed convolution; m a channel, kk a (filter, tap))
//   conv_weight_gemm_kernel  dW[k][kk] = Σ over q of dz[k][q] · X[q][kk], and db[k] from a column
//                            of ones; the positions cut in shares, which cnn_layers.cu's
//                            conv_grad_shares_kernel adds in a fixed order
//
// GPU only: the emulator does not model the tensor cores.
#include <cuda_fp16.h>
#include <mma.h>

#include <algorithm>

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
// of its rows, kRowSteps apart) and, at lane l, column l of W's (kRowsPerThread rows, one per warp
// apart); in conv_weight_gemm_kernel it keeps position l of a step (kRowsPerThread values of dz,
// kColsPerThread columns of X).
constexpr int kRowSteps = kThreads / kCols, kDepthPerThread = kDepth / kRowSteps;
constexpr int kRowsPerThread = kRows / kWarps, kColsPerThread = kCols / kWarps;
static_assert(kThreads % kCols == 0 && kDepth == 32, "a thread keeps one column of X's piece and of W's");
// Rows padded by 8 halves (4 floats), so the rows a fragment's load reads start in different banks;
// every fragment still starts 32 bytes aligned, as WMMA needs.
constexpr int kLdA = kDepth + 8, kLdB = kCols + 8, kLdC = kCols + 4;

// What a block holds in shared memory: one k-step's pieces of the two operands, and the output
// tile the accumulators go through on their way out.
struct Tiles {
  __half a[kRows][kLdA];
  __half b[kDepth][kLdB];
  float c[kRows][kLdC];
};

using Accumulator = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;

// [snippet:cnn_tensor_core_step]
// One k-step on the tensor cores: the warp's 16 × 16 piece of the output gets the product of its
// 16 rows of A and its 16 columns of B added — kDepth / 16 products of 16 × 16 × 16, one
// instruction each.
__device__ void multiply_step(const Tiles& t, Accumulator& acc) {
  const int warp = int(threadIdx.x) / 32, half = warp / kWarpsN, quarter = warp % kWarpsN;
  for (int p = 0; p < kDepth; p += 16) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::load_matrix_sync(a, &t.a[half * 16][p], kLdA);
    wmma::load_matrix_sync(b, &t.b[p][quarter * 16], kLdB);
    wmma::mma_sync(acc, a, b, acc);
  }
}
// [/snippet]

// The accumulators into the shared output tile, for every thread of the block to read.
__device__ void store_tile(Tiles& t, const Accumulator& acc) {
  const int warp = int(threadIdx.x) / 32;
  wmma::store_matrix_sync(&t.c[warp / kWarpsN * 16][warp % kWarpsN * 16], acc, kLdC, wmma::mem_row_major);
  __syncthreads();
}

// The im2col matrix's element: the input that tap `tap` (0 … 8) of output pixel (i, j) reads in
// plane `c` of `image` (a 3 × 3 window, padding 1), 0 outside the image — where `taken`, else 0.
template <typename In>
__device__ float tapped(bool taken, const In* image, int c, int side, int i, int j, int tap) {
  const int row = i + tap / 3 - 1, col = j + tap % 3 - 1;
  taken = taken && row >= 0 && row < side && col >= 0 && col < side;
  return taken ? as_float(image[(std::size_t(c) * side + row) * side + col]) : 0.0f;
}

// [snippet:cnn_implicit_gemm]
// out[n][m][p] for the block's 32 rows m and 64 positions q = (n, p): for each k-step of 32
// (channel, tap) pairs kk, the block gathers W's 32 × 32 piece and X's 32 × 64 piece — X[kk][q],
// the input tap kk of position q reads, the im2col matrix's element — into shared memory, and the
// tensor cores multiply them. Forward (kTransposed false): m a filter, `inner` the channels,
// W[m][kk] = w[m][c][tap]; then + bias, ReLU. The gradient of the input (kTransposed): m a
// channel, `inner` the filters, W[m][kk] = w[k][m][8 − tap] (the filter turned by 180°), and src
// the gradient of the output.
// The gathering, not the multiplying, is the work, and its loads' latency the wait: each thread
// keeps one column of X (one position: its image and pixel found once, the only divisions by a
// variable) and one column of W's piece (its (channel, tap) found once a step, dividing by the
// constant 9), and gathers the next k-step's values into registers while the tensor cores work
// on this one.
template <typename In, bool kTransposed>
__global__ void __launch_bounds__(kThreads)
    conv_gemm_kernel(const In* __restrict__ src, const __half* __restrict__ w, const __half* __restrict__ bias,
                     __half* __restrict__ out, int batch, int rows, int inner, int side) {
  __shared__ __align__(32) Tiles t;
  const int plane = side * side, depth = inner * 9, m0 = int(blockIdx.y) * kRows;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int column = int(threadIdx.x) % kCols, first_row = int(threadIdx.x) / kCols;
  const long q = long(blockIdx.x) * kCols + column;  // this thread's position in X
  const bool inside = q < long(batch) * plane;
  const int p = inside ? int(q % plane) : 0, i = p / side, j = p % side;
  const In* image = src + (inside ? q / plane : 0) * inner * plane;
  __half a[kRowsPerThread], b[kDepthPerThread];  // the next k-step's values, already in FP16
  const auto gather = [&](int k0) {
    const int kk = k0 + lane, ci = kk / 9, tap = kk % 9;
#pragma unroll
    for (int it = 0; it < kRowsPerThread; ++it) {
      const int m = m0 + warp + it * kWarps;
      const std::size_t at =
          kTransposed ? (std::size_t(ci) * rows + m) * 9 + 8 - tap : (std::size_t(m) * inner + ci) * 9 + tap;
      a[it] = __float2half_rn(m < rows && kk < depth ? as_float(w[at]) : 0.0f);
    }
#pragma unroll
    for (int it = 0; it < kDepthPerThread; ++it) {
      const int row_kk = k0 + first_row + it * kRowSteps;
      b[it] = __float2half_rn(tapped(inside && row_kk < depth, image, row_kk / 9, side, i, j, row_kk % 9));
    }
  };
  Accumulator acc;
  wmma::fill_fragment(acc, 0.0f);
  gather(0);
  for (int k0 = 0; k0 < depth; k0 += kDepth) {
#pragma unroll
    for (int it = 0; it < kRowsPerThread; ++it) t.a[warp + it * kWarps][lane] = a[it];
#pragma unroll
    for (int it = 0; it < kDepthPerThread; ++it) t.b[first_row + it * kRowSteps][column] = b[it];
    __syncthreads();
    if (k0 + kDepth < depth) gather(k0 + kDepth);  // in flight while the tensor cores multiply
    multiply_step(t, acc);
    __syncthreads();  // every warp done with this step's pieces before the next overwrites them
  }
  store_tile(t, acc);
  if (!inside) return;
  for (int r = first_row; r < kRows && m0 + r < rows; r += kRowSteps) {
    const int m = m0 + r;
    float z = t.c[r][column];
    if (!kTransposed) z = fmaxf(z + as_float(bias[m]), 0.0f);
    out[(q / plane * rows + m) * plane + p] = __float2half_rn(z);
  }
}
// [/snippet]

// dW[k][kk] = Σ over the share's positions q of dz[k][q] · X[q][kk] (X the im2col matrix, as
// above, with a last column of ones: Σ dz[k][q], the bias's gradient): the block's 32 filters k
// and 64 columns kk, its share of the positions in k-steps of 32. Each thread takes one position
// of a step (found once) and gathers its 8 values of dz and 16 of X, the next step's while the
// tensor cores multiply. The share's totals go to `partial` as add_gradient_shares reads them:
// 10 per (filter, channel, share), the taps' then the bias's (for channel 0; the other channels'
// tenth is 0).
template <typename In>
__global__ void __launch_bounds__(kThreads, 3)  // 3 blocks an SM: at most 85 registers a thread
    conv_weight_gemm_kernel(const In* __restrict__ x, const __half* __restrict__ dz, float* __restrict__ partial,
                            int batch, int channels, int filters, int side, long per_share) {
  __shared__ __align__(32) Tiles t;
  const int plane = side * side, width = channels * 9;  // column `width`: the bias's ones
  const int share = int(blockIdx.x), shares = int(gridDim.x);
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int m0 = int(blockIdx.y) * kRows, col0 = int(blockIdx.z) * kCols;
  const long first = share * per_share, last = min(long(batch) * plane, first + per_share);
  __half a[kRowsPerThread], b[kColsPerThread];  // the next k-step's values, already in FP16
  const auto gather = [&](long q0) {
    const long q = q0 + lane;  // this thread's position: column `lane` of dz's piece, row `lane` of X's
    const bool inside = q < last;
    const int n = inside ? int(q / plane) : 0, p = inside ? int(q % plane) : 0, i = p / side, j = p % side;
    const In* image = x + std::size_t(n) * channels * plane;
#pragma unroll
    for (int it = 0; it < kRowsPerThread; ++it) {
      const int k = m0 + warp + it * kWarps;
      a[it] = __float2half_rn(inside && k < filters ? as_float(dz[(std::size_t(n) * filters + k) * plane + p]) : 0.0f);
    }
#pragma unroll
    for (int it = 0; it < kColsPerThread; ++it) {
      const int col = col0 + warp + it * kWarps;
      const float bias_one = inside && col == width ? 1.0f : 0.0f;
      b[it] = __float2half_rn(col < width ? tapped(inside, image, col / 9, side, i, j, col % 9) : bias_one);
    }
  };
  Accumulator acc;
  wmma::fill_fragment(acc, 0.0f);
  gather(first);
  for (long q0 = first; q0 < last; q0 += kDepth) {
#pragma unroll
    for (int it = 0; it < kRowsPerThread; ++it) t.a[warp + it * kWarps][lane] = a[it];
#pragma unroll
    for (int it = 0; it < kColsPerThread; ++it) t.b[lane][warp + it * kWarps] = b[it];
    __syncthreads();
    if (q0 + kDepth < last) gather(q0 + kDepth);
    multiply_step(t, acc);
    __syncthreads();
  }
  store_tile(t, acc);
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

cudaStream_t as_stream(void* stream) { return static_cast<cudaStream_t>(stream); }

template <typename In>
void launch_forward(const In* x, const __half* w, const __half* b, __half* y, int batch, int channels, int filters,
                    int side, void* stream) {
  const long positions = long(batch) * side * side;
  if (positions == 0 || filters == 0) return;
  const dim3 grid(static_cast<unsigned int>((positions + kCols - 1) / kCols),
                  static_cast<unsigned int>((filters + kRows - 1) / kRows));
  conv_gemm_kernel<In, false><<<grid, kThreads, 0, as_stream(stream)>>>(x, w, b, y, batch, filters, channels, side);
  check_launch("conv_gemm_kernel", grid, kThreads);
}

template <typename In>
void launch_backward(const In* x, const __half* w, const __half* dz, float* dw, float* db, __half* dx, float* partial,
                     int batch, int channels, int filters, int side, void* stream) {
  if (filters == 0 || channels == 0) return;
  const long positions = long(batch) * side * side;
  const int wanted = tensor_core_shares(batch, side, channels, filters);
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
  conv_gemm_kernel<__half, true>
      <<<data_grid, kThreads, 0, as_stream(stream)>>>(dz, w, nullptr, dx, batch, channels, filters, side);
  check_launch("conv_gemm_kernel (transposed)", data_grid, kThreads);
}

}  // namespace

void conv3x3_relu_tensor_cores(const float* x, const std::uint16_t* w, const std::uint16_t* b, std::uint16_t* y,
                               int batch, int channels, int filters, int side, void* stream) {
  launch_forward(x, kernel_view(w), kernel_view(b), kernel_view(y), batch, channels, filters, side, stream);
}

void conv3x3_relu_tensor_cores(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* b, std::uint16_t* y,
                               int batch, int channels, int filters, int side, void* stream) {
  launch_forward(kernel_view(x), kernel_view(w), kernel_view(b), kernel_view(y), batch, channels, filters, side,
                 stream);
}

void conv3x3_backward_tensor_cores(const float* x, const std::uint16_t* w, const std::uint16_t* dz, float* dw,
                                   float* db, std::uint16_t* dx, float* scratch, int batch, int channels, int filters,
                                   int side, void* stream) {
  launch_backward(x, kernel_view(w), kernel_view(dz), dw, db, kernel_view(dx), scratch, batch, channels, filters, side,
                  stream);
}

void conv3x3_backward_tensor_cores(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* dz, float* dw,
                                   float* db, std::uint16_t* dx, float* scratch, int batch, int channels, int filters,
                                   int side, void* stream) {
  launch_backward(kernel_view(x), kernel_view(w), kernel_view(dz), dw, db, kernel_view(dx), scratch, batch, channels,
                  filters, side, stream);
}

}  // namespace gpulab::cnn
