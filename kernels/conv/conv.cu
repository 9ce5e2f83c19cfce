// Convolution on the GPU: y = x ⋆ w, NCHW (see conv_shape.hpp for the shape and conv.hpp for the API).
//
// Five ways to compute the same thing, each one idea:
//   direct_kernel            the definition, one thread per output: every input value is read R·S·K times
//   tiled_kernel             an input tile with its halo staged in shared memory, the filters in
//                            constant memory (a warp reads one weight at a time: a broadcast), 8 filters a thread
//   im2col + GEMM            the patches unrolled into a matrix, then lesson 05's GEMM does the work
//   implicit_gemm_kernel     the same product without the unrolled matrix: tiles of it are gathered
//                            from x straight into shared memory
//   Winograd F(2×2, 3×3)     transforms that turn 36 multiplies per 2 × 2 outputs into 16
// Plus the fused conv + bias + ReLU (tiled_kernel with an epilogue), and a small shared-memory
// kernel with three realistic bugs, for the debugging part of the lesson.
//
// Run them: lesson06_conv --shape 64x64x56x56:64:3x3 --backend gpu
#include <stdexcept>
#include <string>

#include "common/launch.cuh"
#include "conv/conv.hpp"
#include "matmul/matmul.hpp"
#include "matmul/warp_tile.cuh"

namespace gpulab::conv {

namespace {

void check_buffers(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape) {
  gpulab::conv::check_shape(shape);
  if (x.size() != shape.input_size() || w.size() != shape.filter_size() || y.size() != shape.output_size()) {
    throw std::invalid_argument("conv: x, w and y must hold N·C·H·W, K·C·R·S and N·K·P·Q floats for " +
                                gpulab::conv::to_string(shape));
  }
}

}  // namespace

// ---------------------------------------------------------------- 1. direct

// [snippet:direct_kernel]
// The definition: output (n, k, p, q) sums x · w over the C × R × S window that starts at row
// p·stride − pad and column q·stride − pad; positions outside the image are the zero padding.
// Neighbouring threads (along q) read neighbouring inputs, so loads coalesce, but every input
// value is fetched again by each of the R·S windows and K filters that use it.
__global__ void direct_kernel(const float* x, const float* w, float* y, Shape sh) {
  const int C = sh.c, H = sh.h, W = sh.w, K = sh.k, R = sh.r, S = sh.s, P = sh.p(), Q = sh.q();
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
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

constexpr int kTile = 16;  // a block is 16 × 16 threads, a thread computes kRows outputs down a column
constexpr int kTileThreads = kTile * kTile;
constexpr int kConstantFloats = constant_filter_floats;  // 64 KB, all the constant memory a program may declare
__constant__ float filters_constant[kConstantFloats];

// The input rows (or columns) that `outputs` neighbouring outputs read: their own and the halo.
__host__ __device__ inline int tile_extent(int outputs, int filter, int stride) {
  return (outputs - 1) * stride + filter;
}

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
  const int n = static_cast<int>(blockIdx.z) / groups;
  const int f0 = static_cast<int>(blockIdx.z) % groups * kFilters;  // within the chunk
  const int ty = static_cast<int>(threadIdx.x) / kTile, tx = static_cast<int>(threadIdx.x) % kTile;
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
    for (int i = static_cast<int>(threadIdx.x); i < tile_h * tile_w; i += kTileThreads) {
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
  for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
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

// ---------------------------------------------------------------- 3. im2col + GEMM

// [snippet:im2col_kernel]
// Column (n, p, q) of the matrix holds the C·R·S inputs output (n, ·, p, q) multiplies, in the
// filters' order (c, r, s): row (c·R + r)·S + s. Then y = w · columns is a matrix product
// (K × C·R·S times C·R·S × N·P·Q), and each input value is copied up to R·S times.
__global__ void im2col_kernel(const float* x, float* columns, Shape sh, long total) {
  const int C = sh.c, H = sh.h, W = sh.w, R = sh.r, S = sh.s, P = sh.p(), Q = sh.q();
  const long npq = static_cast<long>(sh.n) * P * Q;
  for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<long>(gridDim.x) * blockDim.x) {
    const int row = static_cast<int>(i / npq);
    const long column = i % npq;
    const int q = static_cast<int>(column % Q), p = static_cast<int>(column / Q % P);
    const int n = static_cast<int>(column / (static_cast<long>(P) * Q));
    const int s = row % S, r = row / S % R, c = row / (R * S);
    const int h = p * sh.stride - sh.pad + r, col = q * sh.stride - sh.pad + s;
    columns[i] = (h >= 0 && h < H && col >= 0 && col < W) ? x[((n * C + c) * H + h) * W + col] : 0.0f;
  }
}
// [/snippet]

// The product is K × (N·P·Q), filters by rows; NCHW wants the images outermost.
__global__ void gemm_to_nchw_kernel(const float* product, float* y, long count, int N, int K, int PQ) {
  for (long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<long>(gridDim.x) * blockDim.x) {
    const long pq = i % PQ, k = i / PQ % K, n = i / (static_cast<long>(PQ) * K);
    y[i] = product[(k * N + n) * PQ + pq];
  }
}

std::size_t im2col_workspace(const Shape& shape) {
  const std::size_t npq = static_cast<std::size_t>(shape.n) * shape.p() * shape.q();
  return (static_cast<std::size_t>(shape.c) * shape.r * shape.s + shape.k) * npq;
}

void im2col(std::span<const float> x, std::span<float> columns, const Shape& shape) {
  const std::size_t total = static_cast<std::size_t>(shape.c) * shape.r * shape.s * shape.n * shape.p() * shape.q();
  if (x.size() != shape.input_size() || columns.size() < total) throw std::invalid_argument("im2col: buffer sizes");
  if (total >= (std::size_t{1} << 31)) {
    throw std::invalid_argument("im2col: the column matrix would have " + std::to_string(total) +
                                " elements; the GEMM takes fewer than 2^31");
  }
  if (total == 0) return;
  im2col_kernel<<<dim3(grid_to_fill(total, 256)), dim3(256)>>>(x.data(), columns.data(), shape,
                                                               static_cast<long>(total));
  check_launch("im2col_kernel", dim3(grid_to_fill(total, 256)), dim3(256));
}

void gemm_to_nchw(std::span<const float> product, std::span<float> y, const Shape& shape) {
  if (product.size() < y.size() || y.size() != shape.output_size()) throw std::invalid_argument("gemm_to_nchw: sizes");
  if (y.empty()) return;
  gemm_to_nchw_kernel<<<dim3(grid_to_fill(y.size(), 256)), dim3(256)>>>(
      product.data(), y.data(), static_cast<long>(y.size()), shape.n, shape.k, shape.p() * shape.q());
  check_launch("gemm_to_nchw_kernel", dim3(grid_to_fill(y.size(), 256)), dim3(256));
}

void im2col_gemm(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape,
                 std::span<float> workspace, Gemm gemm) {
  check_buffers(x, w, y, shape);
  if (workspace.size() < im2col_workspace(shape)) throw std::invalid_argument("im2col_gemm: workspace too small");
  if (y.empty()) return;
  const int crs = shape.c * shape.r * shape.s;
  const std::size_t npq = static_cast<std::size_t>(shape.n) * shape.p() * shape.q();
  const auto columns = workspace.first(crs * npq);
  const auto product = workspace.subspan(crs * npq, shape.k * npq);
  im2col(x, columns, shape);
  gemm(w, columns, product, shape.k, static_cast<int>(npq), crs);
  gemm_to_nchw(product, y, shape);
}

// ---------------------------------------------------------------- 4. implicit GEMM

// The product of im2col_gemm, y = w · columns, with lesson 05's warp-tiled scheme (A = the
// filters, B = the columns, C = y): 64 filters × 256 output positions per block, 8 warps of
// 32 × 64, 8 × 8 results per thread, double-buffered steps of 8 along C·R·S.
constexpr int kGemmThreads = 256, kBM = 64, kBN = 256, kBK = 8, kWM = 32, kWN = 64, kPad = 4;

// [snippet:implicit_gemm_kernel]
// What it adds over im2col + GEMM: no column matrix in global memory. Each thread owns one
// column (output position) of the block's tile and gathers its 8 rows per step straight from x.
// Row kk of the virtual matrix is (c, r, s); the block first builds a table of those — an offset
// into x and the (r, s) for the padding test — so the gather costs no divisions.
__global__ void __launch_bounds__(kGemmThreads, 2)
    implicit_gemm_kernel(const float* x, const float* w, float* y, Shape sh) {
  const int C = sh.c, H = sh.h, W = sh.w, K = sh.k, R = sh.r, S = sh.s, P = sh.p(), Q = sh.q();
  const int crs = C * R * S, pq = P * Q, npq = sh.n * pq;
  constexpr int TM = kWM / 4, TN = kWN / 8;
  alignas(16) __shared__ float as[2][kBK][kBM + kPad];  // filters, transposed: as[kk][filter]
  alignas(16) __shared__ float bs[2][kBK][kBN];         // columns: bs[kk][position]
  extern __shared__ int2 rows[];                        // rows[kk] = {offset in x, r << 16 | s}
  const int t = static_cast<int>(threadIdx.x);
  for (int i = t; i < crs; i += kGemmThreads) {
    const int c = i / (R * S), r = i / S % R, s = i % S;
    rows[i] = make_int2((c * H + r) * W + s, r << 16 | s);
  }
  const int k0 = static_cast<int>(blockIdx.y) * kBM, j0 = static_cast<int>(blockIdx.x) * kBN;
  // This thread's column: output position j = (n, p, q), and where its window starts.
  const int j = j0 + t;
  const bool column_valid = j < npq;
  const int n = column_valid ? j / pq : 0, p = column_valid ? j % pq / Q : 0, q = column_valid ? j % Q : 0;
  const int h_base = p * sh.stride - sh.pad, w_base = q * sh.stride - sh.pad;
  const float* window = x + static_cast<long>(n) * C * H * W + h_base * W + w_base;
  __syncthreads();

  float next_a[kBM * kBK / kGemmThreads], next_b[kBK];
  auto load_step = [&](int kk0) {
    for (int l = 0; l < kBM * kBK / kGemmThreads; ++l) {
      const int e = t + l * kGemmThreads, k = k0 + e / kBK, kk = kk0 + e % kBK;
      next_a[l] = (k < K && kk < crs) ? w[k * crs + kk] : 0.0f;
    }
    for (int i = 0; i < kBK; ++i) {
      const int kk = kk0 + i;
      float v = 0.0f;
      if (column_valid && kk < crs) {
        const int2 row = rows[kk];
        const int h = h_base + (row.y >> 16), col = w_base + (row.y & 0xffff);
        if (h >= 0 && h < H && col >= 0 && col < W) v = window[row.x];
      }
      next_b[i] = v;
    }
  };
  auto store_step = [&](int buffer) {
    for (int l = 0; l < kBM * kBK / kGemmThreads; ++l) {
      const int e = t + l * kGemmThreads;
      as[buffer][e % kBK][e / kBK] = next_a[l];
    }
    for (int i = 0; i < kBK; ++i) bs[buffer][i][t] = next_b[i];
  };

  const int warp = t / 32, lane = t % 32;
  const int warp_row = warp / (kBN / kWN) * kWM, warp_col = warp % (kBN / kWN) * kWN;
  const int ly = lane / 8, lx = lane % 8;
  float sum[TM][TN] = {};
  load_step(0);
  store_step(0);
  __syncthreads();
  const int steps = (crs + kBK - 1) / kBK;
  for (int step = 0; step < steps; ++step) {
    const int buffer = step % 2;
    if (step + 1 < steps) load_step((step + 1) * kBK);  // in flight during the arithmetic below
#pragma unroll
    for (int i = 0; i < kBK; ++i) {
      warp_tile_products(&as[buffer][i][warp_row], &bs[buffer][i][warp_col], ly, lx, sum);
    }
    if (step + 1 < steps) store_step(1 - buffer);
    __syncthreads();
  }
  for (int h = 0; h < TN / 4; ++h) {
    for (int jj = 0; jj < 4; ++jj) {
      const int column = j0 + warp_col + 32 * h + lx * 4 + jj;
      if (column >= npq) continue;
      float* out = y + static_cast<long>(column / pq) * K * pq + column % pq;
      for (int r = 0; r < TM; ++r) {
        const int k = k0 + warp_row + r / 4 * 16 + ly * 4 + r % 4;
        if (k < K) out[static_cast<long>(k) * pq] = sum[r][4 * h + jj];
      }
    }
  }
}
// [/snippet]

void implicit_gemm(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape) {
  check_buffers(x, w, y, shape);
  if (y.empty()) return;
  const int crs = shape.c * shape.r * shape.s;
  if (crs > implicit_gemm_limit) {
    throw std::invalid_argument("implicit_gemm: its table holds C·R·S <= " + std::to_string(implicit_gemm_limit) +
                                " rows; this shape has " + std::to_string(crs));
  }
  const long npq = static_cast<long>(shape.n) * shape.p() * shape.q();
  const dim3 grid(blocks_for(npq, kBN), blocks_for(shape.k, kBM));
  implicit_gemm_kernel<<<grid, dim3(kGemmThreads), sizeof(int2) * crs>>>(x.data(), w.data(), y.data(), shape);
  check_launch("implicit_gemm_kernel", grid, dim3(kGemmThreads), sizeof(int2) * crs);
}

// ---------------------------------------------------------------- 5. Winograd F(2×2, 3×3)

// [snippet:winograd]
// For a 2 × 2 block of outputs, a 4 × 4 input tile d and a 3 × 3 filter g:
//   Y = Aᵀ [ (G g Gᵀ) ⊙ (Bᵀ d B) ] A
// with the 4 × 4 product ⊙ element by element: 16 multiplies where the direct way needs 36. The
// transforms are additions (and halves), and G g Gᵀ is computed once per filter. Summed over
// channels, the 16 element-wise products become 16 independent matrix products:
//   M[e] (K × tiles) = U[e] (K × C) · V[e] (C × tiles),  e = 0 … 15,
// which lesson 05's GEMM computes. The price: extra rounding in the transforms, and the
// transformed tiles travel through global memory.

// U[e][k][c] = (G g Gᵀ)[e] with G = [1 0 0; ½ ½ ½; ½ −½ ½; 0 0 1].
__global__ void winograd_filter_kernel(const float* w, float* u, int K, int C) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);  // = k · C + c
  if (i >= K * C) return;
  const float* g = w + i * 9;
  float gg[4][3];  // G g
  for (int col = 0; col < 3; ++col) {
    const float a = g[col], b = g[3 + col], c = g[6 + col];
    gg[0][col] = a;
    gg[1][col] = 0.5f * (a + b + c);
    gg[2][col] = 0.5f * (a - b + c);
    gg[3][col] = c;
  }
  for (int row = 0; row < 4; ++row) {  // (G g) Gᵀ
    const float a = gg[row][0], b = gg[row][1], c = gg[row][2];
    const float out[4] = {a, 0.5f * (a + b + c), 0.5f * (a - b + c), c};
    for (int col = 0; col < 4; ++col) u[static_cast<long>(row * 4 + col) * K * C + i] = out[col];
  }
}

// V[e][c][tile] = (Bᵀ d B)[e] with Bᵀ = [1 0 −1 0; 0 1 1 0; 0 −1 1 0; 0 1 0 −1]; one thread per (c, tile).
__global__ void winograd_input_kernel(const float* x, float* v, Shape sh, int tiles_p, int tiles_q) {
  const int C = sh.c, H = sh.h, W = sh.w;
  const long tiles = static_cast<long>(sh.n) * tiles_p * tiles_q;
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;  // = c · tiles + tile
  if (i >= C * tiles) return;
  const int c = static_cast<int>(i / tiles);
  const long tile = i % tiles;
  const int tq = static_cast<int>(tile % tiles_q), tp = static_cast<int>(tile / tiles_q % tiles_p);
  const int n = static_cast<int>(tile / (static_cast<long>(tiles_q) * tiles_p));
  const float* plane = x + static_cast<long>(n * C + c) * H * W;
  float d[4][4];
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) {
      const int h = 2 * tp - sh.pad + a, col = 2 * tq - sh.pad + b;
      d[a][b] = (h >= 0 && h < H && col >= 0 && col < W) ? plane[h * W + col] : 0.0f;
    }
  }
  float bd[4][4];  // Bᵀ d
  for (int b = 0; b < 4; ++b) {
    bd[0][b] = d[0][b] - d[2][b];
    bd[1][b] = d[1][b] + d[2][b];
    bd[2][b] = d[2][b] - d[1][b];
    bd[3][b] = d[1][b] - d[3][b];
  }
  for (int a = 0; a < 4; ++a) {  // (Bᵀ d) B
    const float out[4] = {bd[a][0] - bd[a][2], bd[a][1] + bd[a][2], bd[a][2] - bd[a][1], bd[a][1] - bd[a][3]};
    for (int b = 0; b < 4; ++b) v[(static_cast<long>(a * 4 + b) * C + c) * tiles + tile] = out[b];
  }
}

// y's 2 × 2 block = Aᵀ M A with Aᵀ = [1 1 1 0; 0 1 −1 −1]; one thread per (k, tile).
__global__ void winograd_output_kernel(const float* m, float* y, Shape sh, int tiles_p, int tiles_q) {
  const int K = sh.k, P = sh.p(), Q = sh.q();
  const long tiles = static_cast<long>(sh.n) * tiles_p * tiles_q;
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;  // = k · tiles + tile
  if (i >= K * tiles) return;
  const int k = static_cast<int>(i / tiles);
  const long tile = i % tiles;
  const int tq = static_cast<int>(tile % tiles_q), tp = static_cast<int>(tile / tiles_q % tiles_p);
  const int n = static_cast<int>(tile / (static_cast<long>(tiles_q) * tiles_p));
  float e[4][4];
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) e[a][b] = m[(static_cast<long>(a * 4 + b) * K + k) * tiles + tile];
  }
  float am[2][4];  // Aᵀ M
  for (int b = 0; b < 4; ++b) {
    am[0][b] = e[0][b] + e[1][b] + e[2][b];
    am[1][b] = e[1][b] - e[2][b] - e[3][b];
  }
  for (int a = 0; a < 2; ++a) {
    const float out[2] = {am[a][0] + am[a][1] + am[a][2], am[a][1] - am[a][2] - am[a][3]};
    for (int b = 0; b < 2; ++b) {
      const int p = 2 * tp + a, q = 2 * tq + b;
      if (p < P && q < Q) y[(static_cast<long>(n * K + k) * P + p) * Q + q] = out[b];
    }
  }
}
// [/snippet]

bool winograd_applies(const Shape& shape) { return shape.r == 3 && shape.s == 3 && shape.stride == 1; }

namespace {
struct WinogradTiles {
  int p, q;
  long count;
};
WinogradTiles winograd_tiles(const Shape& s) {
  const int tp = (s.p() + 1) / 2, tq = (s.q() + 1) / 2;
  return {tp, tq, static_cast<long>(s.n) * tp * tq};
}
}  // namespace

std::size_t winograd_workspace(const Shape& shape) {
  const auto tiles = static_cast<std::size_t>(winograd_tiles(shape).count);
  const std::size_t k = shape.k, c = shape.c;
  return 16 * (k * c + c * tiles + k * tiles);
}

void winograd(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape,
              std::span<float> workspace) {
  check_buffers(x, w, y, shape);
  if (!winograd_applies(shape)) throw std::invalid_argument("winograd: F(2×2, 3×3) needs 3 × 3 filters, stride 1");
  if (workspace.size() < winograd_workspace(shape)) throw std::invalid_argument("winograd: workspace too small");
  if (y.empty()) return;
  const WinogradTiles tiles = winograd_tiles(shape);
  const std::size_t K = shape.k, C = shape.c, T = static_cast<std::size_t>(tiles.count);
  if (C * T >= (std::size_t{1} << 31) || K * T >= (std::size_t{1} << 31)) {
    throw std::invalid_argument("winograd: the transformed tiles would have 2^31 elements or more");
  }
  float* u = workspace.data();
  float* v = u + 16 * K * C;
  float* m = v + 16 * C * T;
  winograd_filter_kernel<<<dim3(blocks_for(static_cast<long>(K * C), 256)), dim3(256)>>>(w.data(), u, shape.k, shape.c);
  check_launch("winograd_filter_kernel", dim3(blocks_for(static_cast<long>(K * C), 256)), dim3(256));
  winograd_input_kernel<<<dim3(blocks_for(static_cast<long>(C * T), 256)), dim3(256)>>>(x.data(), v, shape, tiles.p,
                                                                                        tiles.q);
  check_launch("winograd_input_kernel", dim3(blocks_for(static_cast<long>(C * T), 256)), dim3(256));
  for (std::size_t e = 0; e < 16; ++e) {
    matmul::warp_tiled({u + e * K * C, K * C}, {v + e * C * T, C * T}, {m + e * K * T, K * T}, shape.k,
                       static_cast<int>(T), shape.c);
  }
  winograd_output_kernel<<<dim3(blocks_for(static_cast<long>(K * T), 256)), dim3(256)>>>(m, y.data(), shape, tiles.p,
                                                                                         tiles.q);
  check_launch("winograd_output_kernel", dim3(blocks_for(static_cast<long>(K * T), 256)), dim3(256));
}

// ---------------------------------------------------------------- 6. the debugging kernel

// [snippet:debug_kernel]
// A plain shared-memory convolution: one filter and a 16 × 16 output tile per block. Bug::none
// is correct; each other value plants one mistake people make (see the lesson's debugging part).
template <Bug kBug>
__global__ void debug_tiled_kernel(const float* x, const float* w, float* y, Shape sh) {
  const int C = sh.c, H = sh.h, W = sh.w, K = sh.k, R = sh.r, S = sh.s, P = sh.p(), Q = sh.q();
  extern __shared__ float tile[];
  const int tile_h = tile_extent(kTile, R, sh.stride), tile_w = tile_extent(kTile, S, sh.stride);
  const int n = static_cast<int>(blockIdx.z) / K, k = static_cast<int>(blockIdx.z) % K;
  const int ty = static_cast<int>(threadIdx.x) / kTile, tx = static_cast<int>(threadIdx.x) % kTile;
  const int h0 = static_cast<int>(blockIdx.y) * kTile * sh.stride - sh.pad;
  const int w0 = static_cast<int>(blockIdx.x) * kTile * sh.stride - sh.pad;
  float sum = 0.0f;
  for (int c = 0; c < C; ++c) {
    // Bug::channels: the loop runs over the channels but always reads channel 0.
    const int channel = kBug == Bug::channels ? 0 : c;
    const float* plane = x + (n * C + channel) * H * W;
    for (int i = static_cast<int>(threadIdx.x); i < tile_h * tile_w; i += kTileThreads) {
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
