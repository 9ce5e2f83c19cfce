// Convolution by Winograd's F(4×4, 3×3) (conv.hpp has the API): 6 × 6 input tiles, 36 multiplies
// per 4 × 4 outputs where the direct way needs 144, and the 36 matrix products in one launch, fed
// by lesson 05's pipeline of asynchronous copies.
//
// Run it: lesson06_conv --shape 64x64x56x56:64:3x3 --backend gpu --variant winograd,winograd_4x4,cudnn
#include <cuda_pipeline.h>

#include <stdexcept>
#include <string>

#include "common/launch.cuh"
#include "conv/conv.hpp"
#include "conv/conv_tiles.cuh"
#include "conv/gemm_tile.cuh"
#include "matmul/float4_edges.cuh"

namespace gpulab::conv {

// ---------------------------------------------------------------- 6. Winograd F(4×4, 3×3)

// [snippet:winograd_4x4]
// What it adds over F(2×2, 3×3): larger tiles. A 6 × 6 input tile d gives a 4 × 4 block of outputs,
//   Y = Aᵀ [ (G g Gᵀ) ⊙ (Bᵀ d B) ] A,
// 36 multiplies instead of 144 (F(2×2) saves 2.25×, this 4×), and the transformed tiles shrink
// from 16 floats per 4 outputs to 36 per 16 (4 floats an output to 2.25) in global memory. The 36
// products M[e] = U[e] · V[e] (K × C by C × tiles) are one launch, blockIdx.z = e, with a tile of
// 64 rows, as many as the layer has filters (lesson 05's 128-row tiles would be half empty).
// The price: the transforms' larger constants (5 in Bᵀ, 8 in Aᵀ) magnify the rounding.
//   Bᵀ = [4 0 −5 0 1 0; 0 −4 −4 1 1 0; 0 4 −4 −1 1 0; 0 −2 −1 2 1 0; 0 2 −1 −2 1 0; 0 4 0 −5 0 1]
//   G  = [¼ 0 0; −⅙ −⅙ −⅙; −⅙ ⅙ −⅙; 1⁄24 1⁄12 ⅙; 1⁄24 −1⁄12 ⅙; 0 0 1]
//   Aᵀ = [1 1 1 1 1 0; 0 1 −1 2 −2 0; 0 1 1 4 4 0; 0 1 −1 8 −8 1]
// Each is applied down the columns, then along the rows, by the functions below (their inputs
// `stride` floats apart, their outputs `out_stride` apart).
__device__ __forceinline__ void input_transform(const float* d, int stride, float* out, int out_stride) {
  const float d0 = d[0], d1 = d[stride], d2 = d[2 * stride], d3 = d[3 * stride], d4 = d[4 * stride], d5 = d[5 * stride];
  out[0] = 4.0f * d0 - 5.0f * d2 + d4;
  out[out_stride] = -4.0f * (d1 + d2) + d3 + d4;
  out[2 * out_stride] = 4.0f * (d1 - d2) - d3 + d4;
  out[3 * out_stride] = 2.0f * (d3 - d1) - d2 + d4;
  out[4 * out_stride] = 2.0f * (d1 - d3) - d2 + d4;
  out[5 * out_stride] = 4.0f * d1 - 5.0f * d3 + d5;
}
__device__ __forceinline__ void filter_transform(const float* g, int stride, float* out, int out_stride) {
  const float g0 = g[0], g1 = g[stride], g2 = g[2 * stride];
  out[0] = 0.25f * g0;
  out[out_stride] = -(g0 + g1 + g2) / 6.0f;
  out[2 * out_stride] = -(g0 - g1 + g2) / 6.0f;
  out[3 * out_stride] = g0 / 24.0f + g1 / 12.0f + g2 / 6.0f;
  out[4 * out_stride] = g0 / 24.0f - g1 / 12.0f + g2 / 6.0f;
  out[5 * out_stride] = g2;
}
__device__ __forceinline__ void output_transform(const float* m, int stride, float* out, int out_stride) {
  const float m0 = m[0], m1 = m[stride], m2 = m[2 * stride], m3 = m[3 * stride], m4 = m[4 * stride], m5 = m[5 * stride];
  out[0] = m0 + (m1 + m2) + (m3 + m4);
  out[out_stride] = (m1 - m2) + 2.0f * (m3 - m4);
  out[2 * out_stride] = (m1 + m2) + 4.0f * (m3 + m4);
  out[3 * out_stride] = (m1 - m2) + 8.0f * (m3 - m4) + m5;
}

// Uᵀ[e][c][k] = (G g Gᵀ)[e] for filter k's channel c; one thread per (c, k). Stored transposed (a
// row per channel) so that the products kernel below copies its tiles of U as they are.
__global__ void winograd4_filter_kernel(const float* w, float* ut, int K, int C) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // = c · K + k
  if (i >= K * C) return;
  const int c = i / K, k = i % K;
  float gg[6][3], out[6][6];
  const float* g = w + (k * C + c) * 9;
  for (int col = 0; col < 3; ++col) filter_transform(g + col, 3, &gg[0][col], 3);  // G g
  for (int row = 0; row < 6; ++row) filter_transform(gg[row], 1, out[row], 1);     // (G g) Gᵀ
  for (int e = 0; e < 36; ++e) ut[static_cast<long>(e) * K * C + i] = out[e / 6][e % 6];
}

// V[e][c][tile] = (Bᵀ d B)[e], d the 6 × 6 input tile at (4·tp − pad, 4·tq − pad); one thread per
// (c, tile), consecutive threads on neighbouring tiles (their reads and writes coalesce).
__global__ void winograd4_input_kernel(const float* x, float* v, Shape sh, int tiles_p, int tiles_q) {
  const int C = sh.c, H = sh.h, W = sh.w;
  const long tiles = static_cast<long>(sh.n) * tiles_p * tiles_q;
  const long i = long{blockIdx.x} * blockDim.x + threadIdx.x;  // = c · tiles + tile
  if (i >= C * tiles) return;
  const int c = static_cast<int>(i / tiles);
  const long tile = i % tiles;
  const int tq = static_cast<int>(tile % tiles_q), tp = static_cast<int>(tile / tiles_q % tiles_p);
  const int n = static_cast<int>(tile / (static_cast<long>(tiles_q) * tiles_p));
  const float* plane = x + static_cast<long>(n * C + c) * H * W;
  float d[6][6], bd[6][6], out[6][6];
  for (int a = 0; a < 6; ++a) {
    for (int b = 0; b < 6; ++b) {
      const int h = 4 * tp - sh.pad + a, col = 4 * tq - sh.pad + b;
      d[a][b] = (h >= 0 && h < H && col >= 0 && col < W) ? plane[h * W + col] : 0.0f;
    }
  }
  for (int b = 0; b < 6; ++b) input_transform(&d[0][b], 6, &bd[0][b], 6);  // Bᵀ d
  for (int a = 0; a < 6; ++a) input_transform(bd[a], 1, out[a], 1);        // (Bᵀ d) B
  for (int e = 0; e < 36; ++e) v[(static_cast<long>(e) * C + c) * tiles + tile] = out[e / 6][e % 6];
}

// M[e] = U[e] · V[e]: K × C times C × tiles for e = blockIdx.z, in gemm_tile.cuh's 64 × 256 block
// tiles and warp tiles, fed the way lesson 05's pipelined_kernel feeds its tiles: asynchronous
// copies from global memory straight into shared memory, three steps of 16 channels in shared
// memory: two on their way while the warps multiply the third.
// This product is short (C = 64 channels: 4 steps) and moves more bytes than it computes (230 MB
// of V and M against 3.7 GFLOP on the ResNet layer), so what counts is how much is on its way:
// gemm_tile's one step through registers took 143 µs on an H200, this pipeline 113 µs.
// A copy cannot transpose, so U arrives transposed (the filter kernel above stores Uᵀ); then both
// tiles are straight copies of rows: as[channel][row] from Uᵀ, bs[channel][column] from V.
constexpr int kProductBK = 16, kProductStages = 3;
constexpr std::size_t kProductSharedBytes = sizeof(float) * kProductStages * kProductBK * (kBM + kBN);

// One step's copies for a block at the layer's edges: each four floats that exist and start on 16
// bytes by one asynchronous copy, the rest loaded now, zeros past the ends. Not inlined: the other
// blocks' copies stay a straight run of instructions (lesson 05 measured what a call costs there).
__device__ __noinline__ void winograd4_copy_step_at_edges(float (*as)[kBM], float (*bs)[kBN], const float* ut,
                                                          const float* v, int K, int C, int tiles, int k0, int j0,
                                                          int c0, bool aligned) {
  auto copy4 = [&](float* to, const float* from, int valid) {
    if (aligned && valid >= 4) {
      __pipeline_memcpy_async(to, from, 16);
    } else {
      *reinterpret_cast<float4*>(to) = load4(from, valid, false);  // float4_edges.cuh
    }
  };
  for (int f = static_cast<int>(threadIdx.x); f < kProductBK * kBM / 4; f += kGemmThreads) {
    const int kk = f / (kBM / 4), col = f % (kBM / 4) * 4, c = c0 + kk;
    copy4(&as[kk][col], ut + static_cast<long>(c) * K + k0 + col, valid4(c, C, k0 + col, K));
  }
  for (int f = static_cast<int>(threadIdx.x); f < kProductBK * kBN / 4; f += kGemmThreads) {
    const int kk = f / (kBN / 4), col = f % (kBN / 4) * 4, c = c0 + kk;
    copy4(&bs[kk][col], v + static_cast<long>(c) * tiles + j0 + col, valid4(c, C, j0 + col, tiles));
  }
}

__global__ void __launch_bounds__(kGemmThreads, 2)
    winograd4_products_kernel(const float* ut, const float* v, float* m, int K, int C, int tiles, bool aligned) {
  extern __shared__ float4 products_shared[];
  auto as = reinterpret_cast<float(*)[kProductBK][kBM]>(products_shared);  // as[stage][channel][row]
  auto bs = reinterpret_cast<float(*)[kProductBK][kBN]>(
      reinterpret_cast<float*>(products_shared) + kProductStages * kProductBK * kBM);  // bs[stage][channel][column]
  const long e = blockIdx.z;
  const int k0 = static_cast<int>(blockIdx.y) * kBM, j0 = static_cast<int>(blockIdx.x) * kBN;
  const int t = static_cast<int>(threadIdx.x), warp = t / 32, lane = t % 32;
  const int warp_row = warp / (kBN / kWN) * kWM, warp_col = warp % (kBN / kWN) * kWN;
  const float* a = ut + e * C * K;     // Uᵀ[e]: C rows of K
  const float* b = v + e * C * tiles;  // V[e]: C rows of `tiles`
  const bool inside = aligned && k0 + kBM <= K && j0 + kBN <= tiles;
  auto copy_step = [&](int stage, int c0) {
    if (inside && c0 + kProductBK <= C) {
      for (int l = 0; l < kProductBK * kBM / 4 / kGemmThreads; ++l) {
        const int f = t + l * kGemmThreads, kk = f / (kBM / 4), col = f % (kBM / 4) * 4;
        __pipeline_memcpy_async(&as[stage][kk][col], a + static_cast<long>(c0 + kk) * K + k0 + col, 16);
      }
      for (int l = 0; l < kProductBK * kBN / 4 / kGemmThreads; ++l) {
        const int f = t + l * kGemmThreads, kk = f / (kBN / 4), col = f % (kBN / 4) * 4;
        __pipeline_memcpy_async(&bs[stage][kk][col], b + static_cast<long>(c0 + kk) * tiles + j0 + col, 16);
      }
    } else {
      winograd4_copy_step_at_edges(as[stage], bs[stage], a, b, K, C, tiles, k0, j0, c0, aligned);
    }
    __pipeline_commit();  // one group per step, even an empty one, so the count below stays right
  };

  float sum[kTM][kTN] = {};
  const int steps = (C + kProductBK - 1) / kProductBK;
  for (int s = 0; s < kProductStages - 1; ++s) {
    if (s < steps) {
      copy_step(s, s * kProductBK);
    } else {
      __pipeline_commit();
    }
  }
  for (int s = 0; s < steps; ++s) {
    __pipeline_wait_prior(kProductStages - 2);  // this thread's copies of step s have landed
    __syncthreads();                            // everyone's have; and step s − 1's stage is free
    const int next = s + kProductStages - 1;
    if (next < steps) {
      copy_step(next % kProductStages, next * kProductBK);
    } else {
      __pipeline_commit();
    }
    const int stage = s % kProductStages;
#pragma unroll
    for (int i = 0; i < kProductBK; ++i) {
      warp_tile_products(&as[stage][i][warp_row], &bs[stage][i][warp_col], lane / 8, lane % 8, sum);
    }
  }
  float* out = m + e * K * tiles;
  for (int r = 0; r < kTM; ++r) {
    const int k = k0 + gemm_tile_row(r);
    if (k >= K) continue;
    float* row = out + static_cast<long>(k) * tiles;
    for (int c = 0; c < kTN; c += 4) {  // a thread's 4 neighbouring columns: one 16-byte store
      const int column = j0 + gemm_tile_column(c);
      if (aligned && column < tiles) {  // then tiles % 4 == 0: all four exist
        reinterpret_cast<float4*>(row)[column / 4] =
            make_float4(sum[r][c], sum[r][c + 1], sum[r][c + 2], sum[r][c + 3]);
        continue;
      }
      for (int i = 0; i < 4; ++i) {
        if (column + i < tiles) row[column + i] = sum[r][c + i];
      }
    }
  }
}

// y's 4 × 4 block = Aᵀ M A; one thread per (k, tile). Where y's rows are a multiple of 4 long, a
// tile's 4 outputs of a row are one 16-byte store, not 4 stores 16 bytes apart across the warp
// (58 → 48 µs on the ResNet layer, H200).
__global__ void winograd4_output_kernel(const float* m, float* y, Shape sh, int tiles_p, int tiles_q, bool aligned) {
  const int K = sh.k, P = sh.p(), Q = sh.q();
  const long tiles = static_cast<long>(sh.n) * tiles_p * tiles_q;
  const long i = long{blockIdx.x} * blockDim.x + threadIdx.x;  // = k · tiles + tile
  if (i >= K * tiles) return;
  const int k = static_cast<int>(i / tiles);
  const long tile = i % tiles;
  const int tq = static_cast<int>(tile % tiles_q), tp = static_cast<int>(tile / tiles_q % tiles_p);
  const int n = static_cast<int>(tile / (static_cast<long>(tiles_q) * tiles_p));
  float e[6][6], am[4][6], out[4][4];
  for (int a = 0; a < 36; ++a) e[a / 6][a % 6] = m[(static_cast<long>(a) * K + k) * tiles + tile];
  for (int b = 0; b < 6; ++b) output_transform(&e[0][b], 6, &am[0][b], 6);  // Aᵀ M
  for (int a = 0; a < 4; ++a) output_transform(am[a], 1, out[a], 1);        // (Aᵀ M) A
  for (int a = 0; a < 4; ++a) {
    const int p = 4 * tp + a;
    if (p >= P) break;
    float* row = y + (static_cast<long>(n * K + k) * P + p) * Q;
    if (Q % 4 == 0 && aligned) {  // the row's 4 outputs are one 16-byte store
      reinterpret_cast<float4*>(row)[tq] = make_float4(out[a][0], out[a][1], out[a][2], out[a][3]);
      continue;
    }
    for (int b = 0; b < 4; ++b) {
      if (4 * tq + b < Q) row[4 * tq + b] = out[a][b];
    }
  }
}
// [/snippet]

std::size_t winograd_4x4_workspace(const Shape& shape) { return winograd_floats(shape, 4); }

namespace {
// 60 KB of dynamic shared memory a block: past the 48 KB a kernel gets without asking.
void allow_products_shared() {
  GPULAB_CUDA_CHECK(cudaFuncSetAttribute(winograd4_products_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(kProductSharedBytes)));
}
}  // namespace

void winograd_4x4(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape,
                  std::span<float> workspace) {
  const WinogradPlan plan = winograd_buffers("winograd_4x4", x, w, y, shape, workspace, 4);
  if (y.empty()) return;
  const std::size_t K = shape.k, C = shape.c, T = plan.tiles;
  const dim3 filters(blocks_for(static_cast<long>(K * C), 256)), inputs(blocks_for(static_cast<long>(C * T), 256));
  winograd4_filter_kernel<<<filters, dim3(256)>>>(w.data(), plan.u, shape.k, shape.c);
  check_launch("winograd4_filter_kernel", filters, dim3(256));
  winograd4_input_kernel<<<inputs, dim3(256)>>>(x.data(), plan.v, shape, plan.tiles_p, plan.tiles_q);
  check_launch("winograd4_input_kernel", inputs, dim3(256));
  // Rows of Uᵀ, V and M on 16 bytes: their copies and stores go four floats at a time.
  const bool aligned = K % 4 == 0 && T % 4 == 0 && aligned16(workspace.data());
  allow_products_shared();
  const dim3 products(blocks_for(static_cast<long>(T), kBN), blocks_for(shape.k, kBM), 36);
  winograd4_products_kernel<<<products, dim3(kGemmThreads), kProductSharedBytes>>>(
      plan.u, plan.v, plan.m, shape.k, shape.c, static_cast<int>(T), aligned);
  check_launch("winograd4_products_kernel", products, dim3(kGemmThreads), kProductSharedBytes);
  const dim3 outputs(blocks_for(static_cast<long>(K * T), 256));
  winograd4_output_kernel<<<outputs, dim3(256)>>>(plan.m, y.data(), shape, plan.tiles_p, plan.tiles_q,
                                                  aligned16(y.data()));
  check_launch("winograd4_output_kernel", outputs, dim3(256));
}

}  // namespace gpulab::conv
