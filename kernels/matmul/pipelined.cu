// Lesson 05, rung 8: warp_tiled's tiles fed by asynchronous copies (cp.async), four k-steps of 16
// in shared memory, three of them on their way while the warps multiply the fourth.
// Run it: lesson05_matmul --variant warp_tiled,pipelined,cublas --n 4096
#include <cuda_pipeline.h>

#include "common/launch.cuh"
#include "matmul/float4_edges.cuh"
#include "matmul/matmul.hpp"
#include "matmul/matmul_shared.cuh"
#include "matmul/warp_tile.cuh"

namespace gpulab::matmul {

// 128 × 256 per block, 64 × 64 per warp, 16 × 8 per thread (warp_tiled's large tiles), k-steps
// of 16, four steps in shared memory: 4 · 16 · (132 + 256) floats, 97 KB a block.
constexpr int kPipeBM = 128, kPipeBN = 256, kPipeWM = 64, kPipeWN = 64, kPipeBK = 16, kPipeStages = 4;
constexpr std::size_t kPipeSharedBytes = sizeof(float) * kPipeStages * kPipeBK * (kPipeBM + kPadA + kPipeBN);

// A k-step's copies of B for a block at the matrices' edges (pipelined_kernel below): each four
// floats that exist and start on 16 bytes by one asynchronous copy, the rest loaded now, with
// zeros where the matrix ends. Not inlined: the copies of the blocks inside the matrices stay a
// short straight run of instructions.
template <int BN, int BK>
__device__ __noinline__ void copy_b_step_at_edges(float (*bs)[BN], const float* b, int k, int n, int col0, int k0,
                                                  bool vec_b) {
  for (int e = static_cast<int>(threadIdx.x); e < BK * BN / 4; e += kWarpThreads) {
    const int kk = e / (BN / 4), col = e % (BN / 4) * 4;
    const float* from = b + static_cast<long>(k0 + kk) * n + col0 + col;
    const int valid = valid4(k0 + kk, k, col0 + col, n);
    if (vec_b && valid >= 4) {
      __pipeline_memcpy_async(&bs[kk][col], from, 16);
    } else {
      *reinterpret_cast<float4*>(&bs[kk][col]) = load4(from, valid, false);
    }
  }
}

// [snippet:pipelined_kernel]
// What it adds over warp_tiled_kernel: a deeper pipeline. warp_tiled has one k-step on its way
// while it multiplies; here four steps of 16 share the shared memory, so three are on their way.
// B's tiles travel by asynchronous copies (cp.async, __pipeline_memcpy_async) from global memory
// straight into shared memory, no register holding them on the way. A's tiles must be transposed
// (a thread's values of A at one k are a column of the tile), which a copy cannot do, so they
// still come through registers as in warp_tiled: loaded three steps ahead, stored transposed
// after the arithmetic of the current step. (Transposing all of A first, in a kernel of its own,
// and copying both tiles took 2.83 ms at n = 4096 on an H100 against 2.80: the transpose alone
// took 54 µs.)
// kEdges: built with the tests at the matrices' edges, for shapes that tiles do not cover exactly.
// Without (a shape of whole tiles, rows on 16 bytes) the k-loop holds no call it never makes,
// which cost 5 % (2.97 against 2.81 ms at n = 4096 on an H100): registers kept free for a call.
template <bool kEdges>
__global__ void __launch_bounds__(kWarpThreads, 1) pipelined_kernel(const float* a, const float* b, float* c, int m,
                                                                    int n, int k, bool vec_a, bool vec_b, bool vec_c) {
  constexpr int BM = kPipeBM, BN = kPipeBN, BK = kPipeBK, WM = kPipeWM, WN = kPipeWN, ST = kPipeStages;
  constexpr int TM = WM / 4, TN = WN / 8;         // this thread's elements of C
  constexpr int LA = BM * BK / 4 / kWarpThreads;  // float4 loads of A per thread per step
  constexpr int LB = BN * BK / 4 / kWarpThreads;  // float4 copies of B per thread per step
  extern __shared__ float4 pipeline_shared[];
  auto as = reinterpret_cast<float(*)[BK][BM + kPadA]>(pipeline_shared);  // as[stage][k][row]
  auto bs = reinterpret_cast<float(*)[BK][BN]>(reinterpret_cast<float*>(pipeline_shared) +
                                               ST * BK * (BM + kPadA));  // bs[stage][k][col]
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  const int warp_row = warp / (BN / WN) * WM, warp_col = warp % (BN / WN) * WN;
  const int ly = lane / 8, lx = lane % 8;

  // A: global -> registers (load_a), registers -> shared, transposed (store_a), as in warp_tiled.
  float4 next_a[LA];
  auto load_a = [&](int k0) {
    for (int l = 0; l < LA; ++l) {
      const int e = t + l * kWarpThreads, row = row0 + e / (BK / 4), col = k0 + e % (BK / 4) * 4;
      const float* from = a + static_cast<long>(row) * k + col;
      if constexpr (kEdges) {
        next_a[l] = load4(from, valid4(row, m, col, k), vec_a);
      } else {
        next_a[l] = *reinterpret_cast<const float4*>(from);
      }
    }
  };
  auto store_a = [&](int stage) {
    for (int l = 0; l < LA; ++l) {
      const int e = t + l * kWarpThreads, row = e / (BK / 4), col = e % (BK / 4) * 4;
      as[stage][col + 0][row] = next_a[l].x;
      as[stage][col + 1][row] = next_a[l].y;
      as[stage][col + 2][row] = next_a[l].z;
      as[stage][col + 3][row] = next_a[l].w;
    }
  };
  // B: rows kk of the tile, four columns a copy. Where the block's tile lies wholly inside B (every
  // block of a shape of whole tiles; all but the edges' otherwise), every copy is made without a test.
  const bool inside = vec_b && col0 + BN <= n;
  auto copy_b = [&](int stage, int k0) {
    if constexpr (kEdges) {
      if (!inside || k0 + BK > k) {
        copy_b_step_at_edges<BN, BK>(bs[stage], b, k, n, col0, k0, vec_b);
        __pipeline_commit();
        return;
      }
    }
    for (int l = 0; l < LB; ++l) {
      const int e = t + l * kWarpThreads, kk = e / (BN / 4), col = e % (BN / 4) * 4;
      __pipeline_memcpy_async(&bs[stage][kk][col], b + static_cast<long>(k0 + kk) * n + col0 + col, 16);
    }
    __pipeline_commit();  // one group per step, even an empty one, so the count below stays right
  };

  float sum[TM][TN] = {};
  const int steps = (k + BK - 1) / BK;
  for (int s = 0; s < ST - 1; ++s) {  // the first steps: A stored at once, B on its way
    if (s < steps) {
      load_a(s * BK);
      store_a(s);
      copy_b(s, s * BK);
    } else {
      __pipeline_commit();
    }
  }
  for (int s = 0; s < steps; ++s) {
    __pipeline_wait_prior(ST - 2);  // this thread's copies of step s have landed
    __syncthreads();                // everyone's have, and stored A; and step s − 1's stage is free
    const int next = s + ST - 1;
    if (next < steps) {
      load_a(next * BK);  // in flight during the arithmetic below
      copy_b(next % ST, next * BK);
    } else {
      __pipeline_commit();
    }
    const int stage = s % ST;
#pragma unroll
    for (int i = 0; i < BK; ++i) {
      warp_tile_products(&as[stage][i][warp_row], &bs[stage][i][warp_col], ly, lx, sum);  // warp_tile.cuh
    }
    if (next < steps) store_a(next % ST);  // its stage was freed by the barrier above
  }
  for (int r = 0; r < TM; ++r) {
    const int row = row0 + warp_row + r / 4 * 16 + ly * 4 + r % 4;
    for (int h = 0; h < TN / 4; ++h) {
      const int col = col0 + warp_col + 32 * h + lx * 4;
      const float* v = sum[r] + 4 * h;
      float* to = c + static_cast<long>(row) * n + col;
      if constexpr (kEdges) {
        store4(to, make_float4(v[0], v[1], v[2], v[3]), valid4(row, m, col, n), vec_c);
      } else {
        *reinterpret_cast<float4*>(to) = make_float4(v[0], v[1], v[2], v[3]);
      }
    }
  }
}
// [/snippet]

// ---------------------------------------------------------------- launcher

namespace {

// 97 KB of dynamic shared memory a block: past the 48 KB a kernel gets without asking.
void allow_pipeline_shared() {
  for (auto kernel : {pipelined_kernel<true>, pipelined_kernel<false>}) {
    GPULAB_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kPipeSharedBytes)));
  }
}

}  // namespace

void pipelined(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  check_shapes(a, b, c, m, n, k);
  if (done_without_products(c, k)) return;
  allow_pipeline_shared();
  const dim3 grid(blocks_for(n, kPipeBN), blocks_for(m, kPipeBM));
  const bool va = vector_rows(a.data(), k), vb = vector_rows(b.data(), n), vc = vector_rows(c.data(), n);
  if (va && vb && m % kPipeBM == 0 && n % kPipeBN == 0 && k % kPipeBK == 0) {  // whole tiles: no edges
    pipelined_kernel<false>
        <<<grid, dim3(kWarpThreads), kPipeSharedBytes>>>(a.data(), b.data(), c.data(), m, n, k, va, vb, vc);
    check_launch("pipelined_kernel<whole tiles>", grid, dim3(kWarpThreads), kPipeSharedBytes);
  } else {
    pipelined_kernel<true>
        <<<grid, dim3(kWarpThreads), kPipeSharedBytes>>>(a.data(), b.data(), c.data(), m, n, k, va, vb, vc);
    check_launch("pipelined_kernel<edges>", grid, dim3(kWarpThreads), kPipeSharedBytes);
  }
}

double pipelined_occupancy() {
  allow_pipeline_shared();
  return occupancy(pipelined_kernel<true>, kWarpThreads, kPipeSharedBytes);
}

}  // namespace gpulab::matmul
