// Matrix multiply on the tensor cores below WMMA: the PTX instructions mma.sync and ldmatrix, A
// and B in 16 bits (FP16 or BF16), every sum in FP32. The first rung past wmma_gemm.cu.
//
//   mma_ldmatrix_kernel   128 × 128 tiles of C, 8 warps of 64 × 32; each k-step of 64 copied
//                         asynchronously into swizzled shared memory, two k-steps ahead;
//                         fragments loaded with ldmatrix, multiplied with mma.sync m16n8k16
//
// What it adds over wmma_tiled: WMMA's load_matrix_sync reads a fragment with whatever
// instructions the compiler picks, from a padded tile; ldmatrix loads a whole fragment for the
// warp in one instruction, and the swizzled layout (mma_fragments.cuh) makes those loads free of
// bank conflicts without padding — the layout Hopper's TMA unit writes, so the next rungs
// (hopper_gemm.cu) reuse this multiply unchanged. k-steps of 64 instead of 32 halve the barriers.
//
// Run it: lesson09_mixed_precision --n 4096 --variant wmma_fp16,mma_ldmatrix,cublas_fp16
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>

#include <stdexcept>
#include <string>

#include "common/launch.cuh"
#include "mixed/mixed_gpu.hpp"
#include "mixed/mma_fragments.cuh"

namespace gpulab::mixed {

namespace {

// k-steps in shared memory: one multiplied while two arrive. 96 KB a block, so two blocks (16
// warps) share a multiprocessor; with four stages (128 KB) only one fitted, and the kernel was
// slower than wmma_tiled (799 against 588 µs at n = 4096 on an H200).
constexpr int kCopyStages = 3;
constexpr std::size_t kCopySharedBytes = std::size_t{kCopyStages} * kMmaStageBytes;

// 8 values (16 bytes) of row `row`, columns [col, col + 8) of the row-major height × width matrix
// `src`, into shared memory at `to`: one asynchronous copy where all 8 are inside and the rows
// start on 16-byte boundaries, else one by one with zeros outside (the edges of C need no other
// special case).
template <typename T>
__device__ void copy_chunk(unsigned char* to, const T* src, int height, int width, int row, int col, bool aligned) {
  const T* from = src + static_cast<long>(row) * width + col;
  if (aligned && row < height && col + 8 <= width) {
    __pipeline_memcpy_async(to, from, 16);
  } else {
    T* values = reinterpret_cast<T*>(to);
    for (int i = 0; i < 8; ++i) values[i] = row < height && col + i < width ? from[i] : T(0.0f);
  }
}

// [snippet:mma_stage_copy]
// Starts the copies of k-step `k0` for the block's tile at (row0, col0) into `stage`: A's 128 rows
// of 64 values, then B's 64 rows of 128 as two 64-column halves, each chunk of 8 values to its
// swizzled place.
template <typename T>
__device__ void copy_k_step(unsigned char* stage, const T* a, const T* b, int m, int n, int k, int row0, int col0,
                            int k0) {
  const bool a_aligned = k % 8 == 0, b_aligned = n % 8 == 0;
  for (int chunk = threadIdx.x; chunk < kMmaBlockM * 8; chunk += kMmaThreads) {
    const int r = chunk / 8, c = chunk % 8 * 8;
    copy_chunk(stage + swizzled(r, c), a, m, k, row0 + r, k0 + c, a_aligned);
  }
  unsigned char* stage_b = stage + kStageABytes;
  for (int chunk = threadIdx.x; chunk < kMmaBlockK * 16; chunk += kMmaThreads) {
    const int r = chunk / 16, c = chunk % 16 * 8;
    copy_chunk(stage_b + c / 64 * kHalfBBytes + swizzled(r, c % 64), b, k, n, k0 + r, col0 + c, b_aligned);
  }
}
// [/snippet]

// [snippet:mma_ldmatrix]
// The pipeline of wmma_tiled (copies of the next k-steps in flight while this one is multiplied),
// now in k-steps of 64 and the multiply in mma.sync (mma_warp_step, mma_fragments.cuh).
template <typename T>
__device__ void mma_ldmatrix_tile(const T* a, const T* b, float* c, int m, int n, int k) {
  extern __shared__ __align__(128) unsigned char shared[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_m = warp / kMmaWarpsN, warp_n = warp % kMmaWarpsN;
  const int row0 = static_cast<int>(blockIdx.y) * kMmaBlockM, col0 = static_cast<int>(blockIdx.x) * kMmaBlockN;
  const int steps = (k + kMmaBlockK - 1) / kMmaBlockK;
  auto copy = [&](int step) {
    copy_k_step(shared + step % kCopyStages * kMmaStageBytes, a, b, m, n, k, row0, col0, step * kMmaBlockK);
  };
  for (int step = 0; step < kCopyStages - 1; ++step) {
    if (step < steps) copy(step);
    __pipeline_commit();
  }
  WarpAccumulators acc;
  for (int step = 0; step < steps; ++step) {
    __pipeline_wait_prior(kCopyStages - 2);  // this thread's copies of `step` have landed...
    __syncthreads();                         // ...and everyone's; every warp is done with step - 1
    if (step + kCopyStages - 1 < steps) copy(step + kCopyStages - 1);  // into the stage step - 1 used
    __pipeline_commit();
    const std::uint32_t tile_a = shared_address(shared + step % kCopyStages * kMmaStageBytes);
    mma_warp_step<T>(acc, tile_a, tile_a + kStageABytes, warp_m, warp_n, lane);
  }
  mma_warp_store(acc, c, m, n, row0 + warp_m * kMmaWarpM, col0 + warp_n * kMmaWarpN, lane);
}
// [/snippet]

// mma.sync m16n8k16 exists from compute capability 8.0: for older GPUs the kernels are empty (the
// launcher refuses them there before launching).
__global__ void __launch_bounds__(kMmaThreads)
    mma_ldmatrix_fp16(const __half* a, const __half* b, float* c, int m, int n, int k) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  mma_ldmatrix_tile(a, b, c, m, n, k);
#endif
}
__global__ void __launch_bounds__(kMmaThreads)
    mma_ldmatrix_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int m, int n, int k) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  mma_ldmatrix_tile(a, b, c, m, n, k);
#endif
}

}  // namespace

void mma_ldmatrix(Storage s, const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k) {
  if (m < 0 || n < 0 || k < 0) throw std::invalid_argument("mma_ldmatrix: m, n and k must not be negative");
  if (device_attribute(cudaDevAttrComputeCapabilityMajor) < 8) {
    throw std::invalid_argument("mma_ldmatrix: mma.sync m16n8k16 needs compute capability 8.0 or newer");
  }
  if (m == 0 || n == 0) return;
  static const bool asked = [] {  // more than the 48 KB a kernel gets without asking
    const int bytes = static_cast<int>(kCopySharedBytes);
    GPULAB_CUDA_CHECK(cudaFuncSetAttribute(mma_ldmatrix_fp16, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    GPULAB_CUDA_CHECK(cudaFuncSetAttribute(mma_ldmatrix_bf16, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    return true;
  }();
  (void)asked;
  const dim3 grid(static_cast<unsigned>((n + kMmaBlockN - 1) / kMmaBlockN),
                  static_cast<unsigned>((m + kMmaBlockM - 1) / kMmaBlockM));
  const dim3 threads(kMmaThreads);
  if (s == Storage::fp16) {
    mma_ldmatrix_fp16<<<grid, threads, kCopySharedBytes>>>(reinterpret_cast<const __half*>(a),
                                                           reinterpret_cast<const __half*>(b), c, m, n, k);
    check_launch("mma_ldmatrix_fp16", grid, threads, kCopySharedBytes);
  } else {
    mma_ldmatrix_bf16<<<grid, threads, kCopySharedBytes>>>(reinterpret_cast<const __nv_bfloat16*>(a),
                                                           reinterpret_cast<const __nv_bfloat16*>(b), c, m, n, k);
    check_launch("mma_ldmatrix_bf16", grid, threads, kCopySharedBytes);
  }
}

}  // namespace gpulab::mixed
