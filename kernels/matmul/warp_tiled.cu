// Lesson 05, rung 7: warp-shaped tiles without bank conflicts, 16 × 8 elements a thread, double
// buffering, and split-K where the tiles cannot fill the GPU.
// Run it: lesson05_matmul --variant vectorised,warp_tiled,cublas --n 4096
#include "common/launch.cuh"
#include "common/library_scratch.hpp"
#include "matmul/float4_edges.cuh"
#include "matmul/matmul.hpp"
#include "matmul/matmul_shared.cuh"
#include "matmul/warp_tile.cuh"

namespace gpulab::matmul {

// A block of 256 threads = 8 warps; each warp computes a WM × WN tile of C, its 32 lanes arranged
// 4 × 8. A lane owns groups of 4 × 4 elements: rows ly·4 + 16·g and columns lx·4 + 32·h of its
// warp's tile (ly = lane / 8, lx = lane % 8), so it computes (WM / 4) × (WN / 8) elements.
// A's shared rows are padded by 4 floats. Two shapes are built (see warp_tiled below):
//   128 × 256 per block, 64 × 64 per warp, 16 × 8 per thread: the large matrices' shape
//   128 × 128 per block, 32 × 64 per warp,  8 × 8 per thread: more blocks for smaller ones
// (kWarpThreads, kWarpBK, kPadA: matmul_shared.cuh, as pipelined.cu uses them too.)

// [snippet:warp_tiled_kernel]
// What it adds over vectorised_kernel:
// - Warp tiling. In vectorised_kernel a warp's 32 lanes read B at 32-byte strides (lane i at 8i),
//   so each 16-byte shared load needs two passes through the banks. Here a lane's columns come in
//   groups of 4 that are 32 apart, so a warp's B loads are 128 contiguous bytes (one pass) and its
//   A loads are 4 distinct float4s, each broadcast to 8 lanes.
// - Larger tiles per thread (16 × 8 for large matrices): 6 shared loads feed 128 multiply-adds,
//   where vectorised_kernel needs 4 for 64. The price is registers (over 200 per thread), so
//   fewer warps fit on a multiprocessor; they have enough independent work to hide the latency.
// - Conflict-free transposed stores: A's shared rows are 132 floats long, so the 32 lanes storing
//   their values of A land on 32 different banks.
// - Double buffering: two copies of each shared tile. While the block computes on one, the next
//   tile's global loads are already in flight (into registers), then stored to the other copy:
//   one __syncthreads per step instead of two, and the loads' latency hides behind arithmetic.
// - Split-K (kSplitK), where C has too few tiles to fill the GPU: a grid of two layers
//   (blockIdx.z) halves k, each layer summing its half of the products of every tile. The first
//   layer stores its sums in C, the second in `second` (scratch memory), and add_layers_kernel
//   then adds them: C = first + second, in that order, so the result is the same on every run.
//   Adding both into a zeroed C with atomicAdd needs no scratch, but the atomics were what the
//   layers waited for: 70 µs against 63 at n = 1024 on an H200, even with four floats an atomic.
template <int BM, int BN, int WM, int WN, bool kSplitK>
__global__ void __launch_bounds__(kWarpThreads)
    warp_tiled_kernel(const float* a, const float* b, float* c, int m, int n, int k, int k_slice, bool vec_a,
                      bool vec_b, bool vec_c, float* second) {
  static_assert((BM / WM) * (BN / WN) * 32 == kWarpThreads, "the warps must cover the block's tile");
  constexpr int BK = kWarpBK;
  constexpr int TM = WM / 4, TN = WN / 8;              // this thread's elements of C
  constexpr int LA = BM * BK / 4 / kWarpThreads;       // float4 loads of A per thread per step
  constexpr int LB = BN * BK / 4 / kWarpThreads;       // and of B
  alignas(16) __shared__ float as[2][BK][BM + kPadA];  // A transposed: as[k][row]
  alignas(16) __shared__ float bs[2][BK][BN];
  const int row0 = blockIdx.y * BM;
  const int col0 = blockIdx.x * BN;
  const int t = threadIdx.x;
  const int warp = t / 32, lane = t % 32;
  const int warp_row = warp / (BN / WN) * WM;  // this warp's tile within the block's tile
  const int warp_col = warp % (BN / WN) * WN;
  const int ly = lane / 8, lx = lane % 8;
  const int k_begin = kSplitK ? static_cast<int>(blockIdx.z) * k_slice : 0;
  const int k_end = kSplitK ? min(k, k_begin + k_slice) : k;

  // Global -> registers for the step at k0; registers -> shared copy `buffer`. Element e of a tile
  // (e = t, t + 256, ...) is a float4: row e / (width / 4), columns from e % (width / 4) · 4.
  float4 next_a[LA], next_b[LB];
  auto load_step = [&](int k0) {
    for (int l = 0; l < LA; ++l) {
      const int e = t + l * kWarpThreads, row = row0 + e / (BK / 4), col = k0 + e % (BK / 4) * 4;
      next_a[l] = load4(a + row * k + col, valid4(row, m, col, k_end), vec_a);
    }
    for (int l = 0; l < LB; ++l) {
      const int e = t + l * kWarpThreads, row = k0 + e / (BN / 4), col = col0 + e % (BN / 4) * 4;
      next_b[l] = load4(b + row * n + col, valid4(row, k_end, col, n), vec_b);
    }
  };
  auto store_step = [&](int buffer) {
    for (int l = 0; l < LA; ++l) {
      const int e = t + l * kWarpThreads, row = e / (BK / 4), col = e % (BK / 4) * 4;
      as[buffer][col + 0][row] = next_a[l].x;
      as[buffer][col + 1][row] = next_a[l].y;
      as[buffer][col + 2][row] = next_a[l].z;
      as[buffer][col + 3][row] = next_a[l].w;
    }
    for (int l = 0; l < LB; ++l) {
      const int e = t + l * kWarpThreads, row = e / (BN / 4), col = e % (BN / 4) * 4;
      *reinterpret_cast<float4*>(&bs[buffer][row][col]) = next_b[l];
    }
  };

  float sum[TM][TN] = {};
  load_step(k_begin);
  store_step(0);
  __syncthreads();
  const int steps = (k_end - k_begin + BK - 1) / BK;
  for (int s = 0; s < steps; ++s) {
    const int buffer = s % 2;
    if (s + 1 < steps) load_step(k_begin + (s + 1) * BK);  // in flight during the arithmetic below
#pragma unroll
    for (int i = 0; i < BK; ++i) {
      warp_tile_products(&as[buffer][i][warp_row], &bs[buffer][i][warp_col], ly, lx, sum);  // warp_tile.cuh
    }
    // The other copy was last read in step s - 1, before the barrier that ended it: safe to fill.
    if (s + 1 < steps) store_step(1 - buffer);
    __syncthreads();
  }
  float* out = kSplitK && blockIdx.z == 1 ? second : c;  // second: m × n floats, rows as C's
  for (int r = 0; r < TM; ++r) {
    const int row = row0 + warp_row + r / 4 * 16 + ly * 4 + r % 4;
    for (int h = 0; h < TN / 4; ++h) {
      const int col = col0 + warp_col + 32 * h + lx * 4;
      const float* v = sum[r] + 4 * h;
      store4(out + row * n + col, make_float4(v[0], v[1], v[2], v[3]), valid4(row, m, col, n), vec_c);
    }
  }
}

// C += second, the split-K layers' sums added; four floats a thread where both are on 16 bytes
// and C holds a multiple of 4 floats.
__global__ void add_layers_kernel(float* c, const float* second, long count, bool vec) {
  const long i = long{blockIdx.x} * blockDim.x + threadIdx.x;
  if (vec) {
    if (i >= count / 4) return;
    float4 x = reinterpret_cast<float4*>(c)[i];
    const float4 y = reinterpret_cast<const float4*>(second)[i];
    reinterpret_cast<float4*>(c)[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  } else if (i < count) {
    c[i] += second[i];
  }
}
// [/snippet]

// ---------------------------------------------------------------- launcher

namespace {

// The large tile when it still gives every multiprocessor a block, else the small one: a 1024²
// product has only 32 tiles of 128 × 256 for 132 multiprocessors, but 64 of 128 × 128.
bool large_warp_tiles(int m, int n) {
  const long blocks = static_cast<long>(blocks_for(m, 128)) * blocks_for(n, 256);
  return blocks >= device_attribute(cudaDevAttrMultiProcessorCount);
}

// Two layers of split-K where even the small tiles leave more than a third of the multiprocessors
// idle (64 blocks on 132 at n = 1024: each multiprocessor holds one block of this kernel) and k is
// long enough for both halves to have work.
bool split_k_pays(int m, int n, int k) {
  const long blocks = static_cast<long>(blocks_for(m, 128)) * blocks_for(n, 128);
  return 3 * blocks < 2 * device_attribute(cudaDevAttrMultiProcessorCount) && k >= 256;
}

}  // namespace

template <int BM, int BN, int WM, int WN, bool kSplitK>
void launch_warp_tiled(const float* a, const float* b, float* c, int m, int n, int k, bool va, bool vb, bool vc,
                       const char* name) {
  constexpr int splits = kSplitK ? 2 : 1;
  // The halves of k start on a multiple of the k-step, so float4 loads stay aligned.
  const int k_slice = (k + splits * kWarpBK - 1) / (splits * kWarpBK) * kWarpBK;
  const long count = static_cast<long>(m) * n;
  // The second layer's sums: scratch kept between calls (library_scratch.hpp), so a timed call
  // allocates nothing.
  float* second =
      kSplitK ? static_cast<float*>(library_scratch(static_cast<std::size_t>(count) * sizeof(float))) : nullptr;
  const dim3 grid(blocks_for(n, BN), blocks_for(m, BM), splits);
  warp_tiled_kernel<BM, BN, WM, WN, kSplitK>
      <<<grid, dim3(kWarpThreads)>>>(a, b, c, m, n, k, k_slice, va, vb, vc, second);
  check_launch(name, grid, dim3(kWarpThreads));
  if (kSplitK) {
    const bool vec = count % 4 == 0 && aligned16(c, second);
    const dim3 adds(blocks_for(static_cast<std::size_t>(vec ? count / 4 : count), 256));
    add_layers_kernel<<<adds, dim3(256)>>>(c, second, count, vec);
    check_launch("add_layers_kernel", adds, dim3(256));
  }
}

void warp_tiled(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  check_shapes(a, b, c, m, n, k);
  if (done_without_products(c, k)) return;
  const bool va = vector_rows(a.data(), k), vb = vector_rows(b.data(), n), vc = vector_rows(c.data(), n);
  if (large_warp_tiles(m, n)) {
    launch_warp_tiled<128, 256, 64, 64, false>(a.data(), b.data(), c.data(), m, n, k, va, vb, vc,
                                               "warp_tiled_kernel<128, 256, 64, 64>");
  } else if (split_k_pays(m, n, k)) {
    launch_warp_tiled<128, 128, 32, 64, true>(a.data(), b.data(), c.data(), m, n, k, va, vb, vc,
                                              "warp_tiled_kernel<128, 128, 32, 64, split-K>");
  } else {
    launch_warp_tiled<128, 128, 32, 64, false>(a.data(), b.data(), c.data(), m, n, k, va, vb, vc,
                                               "warp_tiled_kernel<128, 128, 32, 64>");
  }
}

double warp_tiled_occupancy(int m, int n) {
  return large_warp_tiles(m, n) ? occupancy(warp_tiled_kernel<128, 256, 64, 64, false>, kWarpThreads)
                                : occupancy(warp_tiled_kernel<128, 128, 32, 64, false>, kWarpThreads);
}

}  // namespace gpulab::matmul
