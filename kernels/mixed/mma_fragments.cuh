#pragma once
// What the mma.sync rungs of lesson 09 share (mma_gemm.cu and hopper_gemm.cu): the layout of a
// staged k-step in shared memory, the PTX instructions WMMA hides (ldmatrix, mma.sync), one warp's
// multiply of a staged k-step, and its store of C.
//
// A k-step of the block's 128 × 128 tile of C is a 128 × 64 piece of A and a 64 × 128 piece of B,
// both in rows of 64 values (128 bytes): A as 128 rows, B as two 64 × 64 halves side by side (its
// columns 0–63, then 64–127). Within every 128-byte row the eight 16-byte chunks are swizzled —
// chunk c of row r is stored in place c ^ (r % 8) — which is the pattern the TMA unit writes with
// CU_TENSOR_MAP_SWIZZLE_128B, so the asynchronous copies (mma_gemm.cu) and the TMA loads
// (hopper_gemm.cu) fill the same layout and the same multiply reads it.
//
// Why swizzle: ldmatrix reads eight 16-byte rows at once, one per group of four banks. Unswizzled,
// the same chunk of eight consecutive rows sits in the same four banks (rows are 128 bytes apart,
// exactly the 32 banks), an eight-way conflict; swizzled, the eight chunks fall in eight different
// places of the row, every bank once.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace gpulab::mixed {
namespace {

// ---- the tile a block of the mma.sync rungs computes
constexpr int kMmaBlockM = 128, kMmaBlockN = 128, kMmaBlockK = 64;
constexpr int kMmaWarpsM = 2, kMmaWarpsN = 4;  // 8 warps, each a 64 × 32 piece of C
constexpr int kMmaThreads = 32 * kMmaWarpsM * kMmaWarpsN;
constexpr int kMmaWarpM = kMmaBlockM / kMmaWarpsM, kMmaWarpN = kMmaBlockN / kMmaWarpsN;
constexpr int kMmaTilesM = kMmaWarpM / 16, kMmaTilesN = kMmaWarpN / 8;  // 4 × 4 mma tiles of 16 × 8
constexpr int kRowBytes = 128;                                          // 64 16-bit values
constexpr int kStageABytes = kMmaBlockM * kRowBytes;                    // 16 KB
constexpr int kHalfBBytes = kMmaBlockK * kRowBytes;                     // 8 KB: 64 rows of k, 64 columns
constexpr int kStageBBytes = 2 * kHalfBBytes;
constexpr int kMmaStageBytes = kStageABytes + kStageBBytes;  // 32 KB a k-step

// [snippet:swizzle]
// Where element (row, col) of a tile of 64-value rows lives, in bytes from the tile's start
// (which must be 1024-byte aligned for the TMA unit's pattern to be this one): the 16-byte chunk
// col / 8 moves to place (col / 8) ^ (row % 8) of its row.
__device__ __forceinline__ std::uint32_t swizzled(int row, int col) {
  return static_cast<std::uint32_t>(row * kRowBytes + ((((col >> 3) ^ row) & 7) << 4) + ((col & 7) << 1));
}
// [/snippet]

// The shared-memory address PTX instructions take (a 32-bit offset in the shared window).
__device__ __forceinline__ std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// [snippet:mma_ptx]
// ldmatrix: the warp loads four 8 × 8 matrices of 16-bit values from shared memory, lane l giving
// the address of one 16-byte row (lanes 0–7 the rows of the first matrix, 8–15 the second, ...),
// and every lane receives two values of each matrix: exactly the pieces of a fragment that
// mma.sync wants from that lane. .trans hands out the transpose: B is stored with k as rows, and
// mma.sync wants each lane's two values along k.
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], std::uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], std::uint32_t address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}

// mma.sync m16n8k16: the warp multiplies a 16 × 16 piece of A (four registers a lane, two values
// each) by a 16 × 8 piece of B (two registers) and adds the product into a 16 × 8 FP32
// accumulator (four floats a lane: rows l / 4 and l / 4 + 8, columns 2 (l % 4) and the next).
template <typename T>
__device__ __forceinline__ void mma_16x8x16(float (&c)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                            std::uint32_t b1) {
  if constexpr (std::is_same_v<T, __half>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}
// [/snippet]

// One warp's accumulators: 4 × 4 tiles of 16 × 8, four floats a lane each.
struct WarpAccumulators {
  float c[kMmaTilesM][kMmaTilesN][4] = {};
};

// [snippet:mma_warp_step]
// The warp at (warp_m, warp_n) of the block multiplies one staged k-step: four k-slices of 16,
// each loading its 64 rows of A (4 ldmatrix) and 32 columns of B (2 ldmatrix.trans) from the
// swizzled tiles, then 16 mma.sync. Lane l addresses row l % 16 of A at column 8 (l / 16) of the
// slice, and row l % 16 of B's slice at column 8 (l / 16) of its 16-column pair.
template <typename T>
__device__ __forceinline__ void mma_warp_step(WarpAccumulators& acc, std::uint32_t tile_a, std::uint32_t tile_b,
                                              int warp_m, int warp_n, int lane) {
#pragma unroll
  for (int kk = 0; kk < kMmaBlockK; kk += 16) {
    std::uint32_t a[kMmaTilesM][4];
#pragma unroll
    for (int i = 0; i < kMmaTilesM; ++i) {
      const int row = warp_m * kMmaWarpM + i * 16 + lane % 16;
      ldmatrix_x4(a[i], tile_a + swizzled(row, kk + lane / 16 * 8));
    }
    std::uint32_t b[kMmaTilesN][2];
#pragma unroll
    for (int j = 0; j < kMmaTilesN; j += 2) {  // two 8-column tiles a load
      const int col = warp_n * kMmaWarpN + j * 8 + lane / 16 * 8;
      std::uint32_t r[4];
      ldmatrix_x4_trans(r, tile_b + (col / 64) * kHalfBBytes + swizzled(kk + lane % 16, col % 64));
      b[j][0] = r[0];
      b[j][1] = r[1];
      b[j + 1][0] = r[2];
      b[j + 1][1] = r[3];
    }
#pragma unroll
    for (int i = 0; i < kMmaTilesM; ++i) {
#pragma unroll
      for (int j = 0; j < kMmaTilesN; ++j) mma_16x8x16<T>(acc.c[i][j], a[i], b[j][0], b[j][1]);
    }
  }
}
// [/snippet]

// C's element pair (row, col), (row, col + 1) from two accumulator floats: one 8-byte store where
// both are inside and n is even (so the pair is 8-byte aligned), else one by one.
__device__ __forceinline__ void store_pair(float* c, int m, int n, int row, int col, float x, float y) {
  if (row >= m || col >= n) return;
  float* to = c + static_cast<long>(row) * n + col;
  if (col + 1 < n && n % 2 == 0) {
    *reinterpret_cast<float2*>(to) = make_float2(x, y);
  } else {
    to[0] = x;
    if (col + 1 < n) to[1] = y;
  }
}

// The warp's 64 × 32 piece of C, from its accumulators, where it lies inside m × n.
__device__ __forceinline__ void mma_warp_store(const WarpAccumulators& acc, float* c, int m, int n, int row0, int col0,
                                               int lane) {
#pragma unroll
  for (int i = 0; i < kMmaTilesM; ++i) {
#pragma unroll
    for (int j = 0; j < kMmaTilesN; ++j) {
      const int row = row0 + i * 16 + lane / 4, col = col0 + j * 8 + lane % 4 * 2;
      store_pair(c, m, n, row, col, acc.c[i][j][0], acc.c[i][j][1]);
      store_pair(c, m, n, row + 8, col, acc.c[i][j][2], acc.c[i][j][3]);
    }
  }
}

}  // namespace
}  // namespace gpulab::mixed
