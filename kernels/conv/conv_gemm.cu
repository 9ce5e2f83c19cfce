// Convolution as a matrix product, y = w · patches (conv.hpp has the API):
//   im2col + GEMM          the patches unrolled into a matrix, then lesson 05's GEMM does the work
//   implicit_gemm_kernel   the same product without the unrolled matrix: tiles of it are gathered
//                          from x straight into shared memory
//
// Run them: lesson06_conv --shape 64x64x56x56:64:3x3 --backend gpu
#include <stdexcept>
#include <string>

#include "common/launch.cuh"
#include "conv/conv.hpp"
#include "conv/conv_tiles.cuh"
#include "conv/gemm_tile.cuh"
#include "matmul/matmul.hpp"

namespace gpulab::conv {

// ---------------------------------------------------------------- 3. im2col + GEMM

// [snippet:im2col_kernel]
// Column (n, p, q) of the matrix holds the C·R·S inputs output (n, ·, p, q) multiplies, in the
// filters' order (c, r, s): row (c·R + r)·S + s. Then y = w · columns is a matrix product
// (K × C·R·S times C·R·S × N·P·Q), and each input value is copied up to R·S times.
__global__ void im2col_kernel(const float* x, float* columns, Shape sh, long total) {
  const int C = sh.c, H = sh.h, W = sh.w, R = sh.r, S = sh.s, P = sh.p(), Q = sh.q();
  const long npq = static_cast<long>(sh.n) * P * Q;
  for (long i = long{blockIdx.x} * blockDim.x + threadIdx.x; i < total;
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
  for (long i = long{blockIdx.x} * blockDim.x + threadIdx.x; i < count;
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
// filters, B = the columns, C = y): gemm_tile.cuh's 64 filters × 256 output positions per block,
// 8 × 8 results per thread, double-buffered steps of 8 along C·R·S.

// [snippet:implicit_gemm_kernel]
// What it adds over im2col + GEMM: no column matrix in global memory. Each thread owns one
// column (output position) of the block's tile and gathers its 8 rows per step straight from x.
// Row kk of the virtual matrix is (c, r, s); the block first builds a table of those — an offset
// into x and the (r, s) for the padding test — so the gather costs no divisions.
__global__ void __launch_bounds__(kGemmThreads, 2)
    implicit_gemm_kernel(const float* x, const float* w, float* y, Shape sh) {
  const int C = sh.c, H = sh.h, W = sh.w, K = sh.k, R = sh.r, S = sh.s, P = sh.p(), Q = sh.q();
  const int crs = C * R * S, pq = P * Q, npq = sh.n * pq;
  alignas(16) __shared__ float as[2][kBK][kBM + kPad];  // filters, transposed: as[kk][filter]
  alignas(16) __shared__ float bs[2][kBK][kBN];         // columns: bs[kk][position]
  extern __shared__ int2 rows[];                        // rows[kk] = {offset in x, r << 16 | s}
  const int t = threadIdx.x;
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

  auto gather = [&](int kk0, float(&column)[kBK]) {
    for (int i = 0; i < kBK; ++i) {
      const int kk = kk0 + i;
      float v = 0.0f;
      if (column_valid && kk < crs) {
        const int2 row = rows[kk];
        const int h = h_base + (row.y >> 16), col = w_base + (row.y & 0xffff);
        if (h >= 0 && h < H && col >= 0 && col < W) v = window[row.x];
      }
      column[i] = v;
    }
  };
  float sum[kTM][kTN] = {};
  gemm_tile({as, bs}, w + static_cast<long>(k0) * crs, K - k0, crs, crs, gather, sum);
  for (int c = 0; c < kTN; ++c) {
    const int column = j0 + gemm_tile_column(c);
    if (column >= npq) continue;
    float* out = y + static_cast<long>(column / pq) * K * pq + column % pq;
    for (int r = 0; r < kTM; ++r) {
      const int k = k0 + gemm_tile_row(r);
      if (k < K) out[static_cast<long>(k) * pq] = sum[r][c];
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

}  // namespace gpulab::conv
