// Matrix multiply on the tensor cores through WMMA (warp matrix multiply-accumulate): C = A · B with
// A and B stored in 16 bits (FP16 or BF16) and every product summed in FP32.
//
//   wmma_simple_kernel  one warp per 16 × 16 tile of C, fragments straight from global memory
//   wmma_tiled_kernel   a block of 8 warps per 128 × 128 tile, A and B staged in shared memory by
//                       asynchronous copies, three k-steps in flight
//
// A tensor core multiplies small matrices in one instruction: a warp hands it a 16 × 16 piece of
// A and one of B (its "fragments"), and it adds their product into a 16 × 16 FP32 accumulator.
// The code no longer says what one thread computes: the warp computes a tile together, and which
// thread holds which element of a fragment is the hardware's business.
//
// Run them: lesson09_mixed_precision --n 4096 --variant wmma_simple,wmma_tiled,cublas_fp16
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/launch.cuh"
#include "mixed/mixed_gpu.hpp"

namespace gpulab::mixed {

namespace wmma = nvcuda::wmma;

namespace {

// ---------------------------------------------------------------- kernels

// [snippet:wmma_simple]
// Warp w of the grid computes the 16 × 16 tile of C at (tile_row, tile_col): k / 16 times, it
// loads a 16 × 16 piece of A's rows and of B's columns into fragments and lets the tensor cores
// add their product to the accumulator. Every piece comes from global memory, and the 8 warps
// of a block that share a row of tiles each load it again.
template <typename T>
__device__ void wmma_simple_tile(const T* a, const T* b, float* c, int m, int n, int k) {
  const int warp = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32);
  const int tiles_per_row = n / 16;
  const int tile_row = warp / tiles_per_row, tile_col = warp % tiles_per_row;
  if (tile_row >= m / 16) return;  // the whole warp leaves together
  wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a_frag;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> b_frag;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int p = 0; p < k; p += 16) {
    wmma::load_matrix_sync(a_frag, a + static_cast<long>(tile_row) * 16 * k + p, k);  // rows of A, k apart
    wmma::load_matrix_sync(b_frag, b + static_cast<long>(p) * n + tile_col * 16, n);
    wmma::mma_sync(acc, a_frag, b_frag, acc);
  }
  wmma::store_matrix_sync(c + static_cast<long>(tile_row) * 16 * n + tile_col * 16, acc, n, wmma::mem_row_major);
}
// [/snippet]

// ---- the tiled kernel's shape
constexpr int kBlockM = 128, kBlockN = 128, kBlockK = 32;  // the block's tile of C, and its k-step
constexpr int kWarpsM = 2, kWarpsN = 4;                    // 8 warps, each a 64 × 32 piece of the tile
constexpr int kWarpM = kBlockM / kWarpsM, kWarpN = kBlockN / kWarpsN;
constexpr int kFragsM = kWarpM / 16, kFragsN = kWarpN / 16;  // 4 × 2 accumulators per warp
constexpr int kThreads = 32 * kWarpsM * kWarpsN;
constexpr int kStages = 3;  // k-steps in flight: one computed on while two more arrive
// Each row of a shared tile is padded by 8 values (16 bytes), so the rows the tensor cores read
// together start in different memory banks.
constexpr int kLdA = kBlockK + 8, kLdB = kBlockN + 8;
constexpr int kStageA = kBlockM * kLdA, kStageB = kBlockK * kLdB;  // values per stage
constexpr std::size_t kSharedBytes = std::size_t{kStages} * (kStageA + kStageB) * 2;

// Copies rows [row0, row0 + rows) × columns [col0, col0 + cols) of the row-major matrix `src`
// (height × width, `ld` apart) into `dst` (`ld_dst` apart), 8 values (16 bytes) per copy:
// asynchronously where all 8 are inside and aligned, else one by one with zeros outside, so the
// kernel needs no special case at the edges.
template <typename T, int rows, int cols>
__device__ void stage_tile(T* dst, int ld_dst, const T* src, int height, int width, int row0, int col0, bool aligned) {
  constexpr int kChunksPerRow = cols / 8;
  for (int chunk = threadIdx.x; chunk < rows * kChunksPerRow; chunk += kThreads) {
    const int r = chunk / kChunksPerRow, c = chunk % kChunksPerRow * 8;
    const int row = row0 + r, col = col0 + c;
    T* to = dst + r * ld_dst + c;
    const T* from = src + static_cast<long>(row) * width + col;
    if (aligned && row < height && col + 8 <= width) {
      __pipeline_memcpy_async(to, from, 16);
    } else {
      for (int i = 0; i < 8; ++i) to[i] = row < height && col + i < width ? from[i] : T(0.0f);
    }
  }
}

// [snippet:wmma_tiled]
// What it adds over wmma_simple: the 8 warps of a block share each 128 × 32 piece of A and 32 ×
// 128 piece of B through shared memory (loaded once, read by 4 and 2 warps), each warp keeps
// 4 × 2 accumulators so every fragment it loads feeds 2 or 4 multiplies, and the copies of the
// next k-steps run while the tensor cores work on this one (__pipeline_memcpy_async: global to
// shared memory without passing through registers, then a wait for the oldest).
template <typename T>
__device__ void wmma_tiled_tile(const T* a, const T* b, float* c, int m, int n, int k) {
  extern __shared__ __align__(128) unsigned char shared[];
  T* tiles_a = reinterpret_cast<T*>(shared);  // kStages tiles of A, then kStages of B
  T* tiles_b = tiles_a + kStages * kStageA;
  const int warp = threadIdx.x / 32;
  const int warp_m = warp / kWarpsN, warp_n = warp % kWarpsN;
  const int row0 = static_cast<int>(blockIdx.y) * kBlockM, col0 = static_cast<int>(blockIdx.x) * kBlockN;
  const bool a_aligned = k % 8 == 0, b_aligned = n % 8 == 0;  // rows start on 16-byte boundaries

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kFragsM][kFragsN];
  for (auto& row : acc) {
    for (auto& f : row) wmma::fill_fragment(f, 0.0f);
  }
  const int steps = (k + kBlockK - 1) / kBlockK;
  auto stage = [&](int step) {  // starts the copies of k-step `step` into its stage
    const int s = step % kStages;
    stage_tile<T, kBlockM, kBlockK>(tiles_a + s * kStageA, kLdA, a, m, k, row0, step * kBlockK, a_aligned);
    stage_tile<T, kBlockK, kBlockN>(tiles_b + s * kStageB, kLdB, b, k, n, step * kBlockK, col0, b_aligned);
  };
  for (int step = 0; step < kStages - 1; ++step) {
    if (step < steps) stage(step);
    __pipeline_commit();
  }
  for (int step = 0; step < steps; ++step) {
    __pipeline_wait_prior(kStages - 2);                         // this thread's copies of `step` have landed...
    __syncthreads();                                            // ...and everyone's; every warp is done with step - 1
    if (step + kStages - 1 < steps) stage(step + kStages - 1);  // into the stage step - 1 used
    __pipeline_commit();
    const T* tile_a = tiles_a + step % kStages * kStageA + warp_m * kWarpM * kLdA;
    const T* tile_b = tiles_b + step % kStages * kStageB + warp_n * kWarpN;
    for (int p = 0; p < kBlockK; p += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a_frag[kFragsM];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> b_frag[kFragsN];
      for (int i = 0; i < kFragsM; ++i) wmma::load_matrix_sync(a_frag[i], tile_a + i * 16 * kLdA + p, kLdA);
      for (int j = 0; j < kFragsN; ++j) wmma::load_matrix_sync(b_frag[j], tile_b + p * kLdB + j * 16, kLdB);
      for (int i = 0; i < kFragsM; ++i) {
        for (int j = 0; j < kFragsN; ++j) wmma::mma_sync(acc[i][j], a_frag[i], b_frag[j], acc[i][j]);
      }
    }
  }
  __pipeline_wait_prior(0);
  __syncthreads();  // the stages are free: each warp's corner of them becomes its staging area

  // Accumulators wholly inside C go straight to it (rows 32-byte aligned when n % 8 == 0); those
  // on the edge go through shared memory and out element by element, the outside dropped.
  float* staging = reinterpret_cast<float*>(shared) + warp * 16 * 16;
  const int lane = threadIdx.x % 32;
  for (int i = 0; i < kFragsM; ++i) {
    for (int j = 0; j < kFragsN; ++j) {
      const int r = row0 + warp_m * kWarpM + i * 16, col = col0 + warp_n * kWarpN + j * 16;
      if (r >= m || col >= n) continue;
      if (r + 16 <= m && col + 16 <= n && b_aligned) {
        wmma::store_matrix_sync(c + static_cast<long>(r) * n + col, acc[i][j], n, wmma::mem_row_major);
        continue;
      }
      wmma::store_matrix_sync(staging, acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < 16 * 16; e += 32) {
        const int er = r + e / 16, ec = col + e % 16;
        if (er < m && ec < n) c[static_cast<long>(er) * n + ec] = staging[e];
      }
      __syncwarp();
    }
  }
}
// [/snippet]

// BF16 fragments exist from compute capability 8.0: for older GPUs the BF16 kernels are empty
// (the launchers refuse them there before launching).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define GPULAB_BF16_BODY(call) call
#else
#define GPULAB_BF16_BODY(call)
#endif

__global__ void wmma_simple_fp16(const __half* a, const __half* b, float* c, int m, int n, int k) {
  wmma_simple_tile(a, b, c, m, n, k);
}
__global__ void wmma_simple_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int m, int n, int k) {
  GPULAB_BF16_BODY(wmma_simple_tile(a, b, c, m, n, k));
}
__global__ void __launch_bounds__(kThreads)
    wmma_tiled_fp16(const __half* a, const __half* b, float* c, int m, int n, int k) {
  wmma_tiled_tile(a, b, c, m, n, k);
}
__global__ void __launch_bounds__(kThreads)
    wmma_tiled_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int m, int n, int k) {
  GPULAB_BF16_BODY(wmma_tiled_tile(a, b, c, m, n, k));
}

// ---------------------------------------------------------------- launchers

void check_shape(Storage s, int m, int n, int k) {
  if (m < 0 || n < 0 || k < 0) throw std::invalid_argument("mixed: m, n and k must not be negative");
  if (!tensor_cores_take(s)) {
    throw std::invalid_argument(std::string("mixed: this GPU's tensor cores do not take ") +
                                gpulab::mixed::to_string(s) + " (compute capability 8.0 or newer does)");
  }
}

template <typename T>
const T* as(const std::uint16_t* p) {
  return reinterpret_cast<const T*>(p);
}

}  // namespace

bool tensor_cores_take(Storage s) {
  const int major = device_attribute(cudaDevAttrComputeCapabilityMajor);
  return major >= 8 || (s == Storage::fp16 && major >= 7);
}

void wmma_simple(Storage s, const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k) {
  check_shape(s, m, n, k);
  if (m % 16 != 0 || n % 16 != 0 || k % 16 != 0) {
    throw std::invalid_argument("wmma_simple: m, n and k must be multiples of 16 (one fragment); wmma_tiled takes any");
  }
  if (m == 0 || n == 0) return;
  const long warps = static_cast<long>(m / 16) * (n / 16);
  const dim3 grid(static_cast<unsigned>((warps * 32 + 255) / 256));
  const dim3 threads(256);
  if (s == Storage::fp16) {
    wmma_simple_fp16<<<grid, threads>>>(as<__half>(a), as<__half>(b), c, m, n, k);
    check_launch("wmma_simple_fp16", grid, threads);
  } else {
    wmma_simple_bf16<<<grid, threads>>>(as<__nv_bfloat16>(a), as<__nv_bfloat16>(b), c, m, n, k);
    check_launch("wmma_simple_bf16", grid, threads);
  }
}

void wmma_tiled(Storage s, const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k) {
  check_shape(s, m, n, k);
  if (m == 0 || n == 0) return;
  // More than the 48 KB a kernel gets without asking: ask, once per kernel.
  static const bool asked = [] {
    const int bytes = static_cast<int>(kSharedBytes);
    GPULAB_CUDA_CHECK(cudaFuncSetAttribute(wmma_tiled_fp16, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    GPULAB_CUDA_CHECK(cudaFuncSetAttribute(wmma_tiled_bf16, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    return true;
  }();
  (void)asked;
  const dim3 grid(static_cast<unsigned>((n + kBlockN - 1) / kBlockN),
                  static_cast<unsigned>((m + kBlockM - 1) / kBlockM));
  const dim3 threads(kThreads);
  const std::size_t shared_bytes = kSharedBytes;
  if (s == Storage::fp16) {
    wmma_tiled_fp16<<<grid, threads, shared_bytes>>>(as<__half>(a), as<__half>(b), c, m, n, k);
    check_launch("wmma_tiled_fp16", grid, threads, shared_bytes);
  } else {
    wmma_tiled_bf16<<<grid, threads, shared_bytes>>>(as<__nv_bfloat16>(a), as<__nv_bfloat16>(b), c, m, n, k);
    check_launch("wmma_tiled_bf16", grid, threads, shared_bytes);
  }
}

}  // namespace gpulab::mixed
