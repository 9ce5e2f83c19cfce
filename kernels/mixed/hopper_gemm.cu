// Matrix multiply on Hopper's tensor cores (H100, H200): the last rungs of lesson 09's ladder,
// A and B in 16 bits (FP16 or BF16), every sum in FP32. Built for sm_90a (see CMakeLists.txt).
//
//   tma_mma_kernel   mma_ldmatrix's multiply, its k-steps loaded by the TMA unit: one thread
//                    issues three copies a k-step instead of 256 threads issuing 2,048, and an
//                    mbarrier per stage says when they have landed
//   wgmma_kernel     128 × 256 tiles; warp group 0 only loads (one thread issuing TMA copies
//                    four k-steps ahead), warp groups 1 and 2 only multiply, each its 64 × 256
//                    half with wgmma straight from shared memory; full and empty barriers pass
//                    each stage between them; blocks take their tiles in bands (tile_of)
//   wgmma_cluster_kernel  wgmma_kernel's blocks in pairs (clusters of two) sharing the loads of B
//                    by multicast, persistent, a k-step's wgmma still running as the next is
//                    queued, C written by TMA stores
//
// Run them: lesson09_mixed_precision --n 4096 --variant mma_ldmatrix,tma_mma,wgmma_fp16,wgmma_cluster_fp16,cublas_fp16
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/launch.cuh"
#include "mixed/hopper_gpu.hpp"
#include "mixed/mma_fragments.cuh"
#include "mixed/tensor_map.cuh"
#include "mixed/tma.cuh"
#include "mixed/wgmma.cuh"

namespace gpulab::mixed {

namespace {

// ---------------------------------------------------------------- TMA loads, mma.sync multiply

constexpr int kTmaStages = 3;  // 96 KB: two blocks a multiprocessor, as mma_ldmatrix
constexpr std::size_t kTmaSharedBytes = std::size_t{kTmaStages} * kMmaStageBytes + 1024 + 64;

// [snippet:tma_mma]
// What it adds over mma_ldmatrix: thread 0 asks the TMA unit for each k-step — a 64 × 128 box of A
// and two 64 × 64 boxes of B, swizzled on the way in — and tells the stage's barrier how many
// bytes to expect; every thread waits on that barrier instead of issuing copies of its own. The
// multiply is mma_ldmatrix's, unchanged: the TMA unit writes the same swizzled layout.
template <typename T>
__device__ void tma_mma_tile(const CUtensorMap& map_a, const CUtensorMap& map_b, float* c, int m, int n, int k) {
  extern __shared__ unsigned char shared_bytes[];
  unsigned char* shared = aligned_1024(shared_bytes);
  auto* full = reinterpret_cast<std::uint64_t*>(shared + kTmaStages * kMmaStageBytes);  // a barrier per stage
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_m = warp / kMmaWarpsN, warp_n = warp % kMmaWarpsN;
  const int row0 = static_cast<int>(blockIdx.y) * kMmaBlockM, col0 = static_cast<int>(blockIdx.x) * kMmaBlockN;
  const int steps = (k + kMmaBlockK - 1) / kMmaBlockK;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kTmaStages; ++s) mbarrier_init(&full[s], 1);
    fence_barrier_init();
  }
  __syncthreads();
  auto load = [&](int step) {  // thread 0 only
    const int s = step % kTmaStages, k0 = step * kMmaBlockK;
    unsigned char* stage = shared + s * kMmaStageBytes;
    mbarrier_expect_bytes(&full[s], kMmaStageBytes);
    tma_load(stage, map_a, k0, row0, &full[s]);
    tma_load(stage + kStageABytes, map_b, col0, k0, &full[s]);
    tma_load(stage + kStageABytes + kHalfBBytes, map_b, col0 + 64, k0, &full[s]);
  };
  if (threadIdx.x == 0) {
    for (int step = 0; step < kTmaStages - 1 && step < steps; ++step) load(step);
  }
  WarpAccumulators acc;
  for (int step = 0; step < steps; ++step) {
    __syncthreads();  // every warp is done with step - 1: its stage can be loaded again
    if (threadIdx.x == 0 && step + kTmaStages - 1 < steps) load(step + kTmaStages - 1);
    mbarrier_wait(&full[step % kTmaStages], step / kTmaStages % 2);  // the stage's k-th use: phase k
    const std::uint32_t tile_a = shared_address(shared + step % kTmaStages * kMmaStageBytes);
    mma_warp_step<T>(acc, tile_a, tile_a + kStageABytes, warp_m, warp_n, lane);
  }
  mma_warp_store(acc, c, m, n, row0 + warp_m * kMmaWarpM, col0 + warp_n * kMmaWarpN, lane);
}
// [/snippet]

// ---------------------------------------------------------------- TMA loads, wgmma multiply

constexpr int kWgBlockM = 128, kWgBlockN = 256, kWgBlockK = 64;
static_assert(kWgBlockK == kMmaBlockK, "both rungs read B in boxes of the same 64 rows (launch_hopper)");
constexpr int kWgConsumers = 2;                       // warp groups that multiply, 64 rows of the tile each
constexpr int kWgThreads = 128 * (1 + kWgConsumers);  // and one that loads
constexpr int kWgStages = 4;
constexpr int kWgStageABytes = kWgBlockM * kRowBytes;                     // 16 KB
constexpr int kWgStageBBytes = (kWgBlockN / 64) * kWgBlockK * kRowBytes;  // four 64 × 64 boxes: 32 KB
constexpr int kWgStageBytes = kWgStageABytes + kWgStageBBytes;
constexpr std::size_t kWgSharedBytes = std::size_t{kWgStages} * kWgStageBytes + 1024 + 128;
constexpr int kBandRows = 16;  // rows of tiles a band of consecutive blocks goes down (see tile_of)

// [snippet:tile_order]
// Which tile of C block b computes. Blocks start roughly in the order of their numbers, and the
// ~132 running at once read the same k-step of their rows of A and columns of B at about the same
// time: going along rows of tiles (b → row b / tiles_n), they would need 4 rows of A but all 16–32
// columns of B at n = 4096–8192. In bands of kBandRows rows, going down each column of the band
// before the next, they need 16 rows of A and about 8 columns of B: half the bytes, so more of
// them are found in L2.
__device__ __forceinline__ int2 tile_of(int b, int tiles_m, int tiles_n, int band_rows = kBandRows) {
  const int band = b / (band_rows * tiles_n), first = band * band_rows;
  const int rows = min(band_rows, tiles_m - first), in_band = b % (band_rows * tiles_n);
  return make_int2(first + in_band % rows, in_band / rows);  // (row of tiles, column of tiles)
}
// [/snippet]

// [snippet:wgmma_k_step]
// One k-step of a consumer group: its 64 rows of A's stage times the stage's 64 × 256 of B, four
// wgmma of 16 along k, committed as one group (not waited for).
template <typename T>
__device__ __forceinline__ void wgmma_k_step(float (&d)[128], std::uint32_t tile_a, std::uint32_t tile_b) {
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < kWgBlockK / 16; ++kk) {
    // A: 16 values further along its 128-byte rows; 8-row groups 1024 bytes apart.
    // B: 16 rows further down (two 8-row groups); 8-row groups 1024 bytes apart, its 64-column
    // boxes kWgBlockK rows (8 KB) apart.
    wgmma_64x256x16<T>(d, smem_descriptor(tile_a + kk * 32, 16, 1024),
                       smem_descriptor(tile_b + kk * 16 * kRowBytes, kWgBlockK * kRowBytes, 1024));
  }
  wgmma_commit();
}
// [/snippet]

// A consumer group's 64 × 256 sums into C at (row0, col0). Thread t of the group holds rows
// 16 (t / 32) + (t % 32) / 4 and 8 more, columns 8 j + 2 (t % 4) and the next, j = 0 … 31:
// d[4 j] … d[4 j + 3].
__device__ __forceinline__ void wgmma_store(const float (&d)[128], float* c, int m, int n, int row0, int col0) {
  const int t = static_cast<int>(threadIdx.x) % 128;
  const int row = row0 + t / 32 * 16 + t % 32 / 4;
#pragma unroll
  for (int j = 0; j < kWgBlockN / 8; ++j) {
    const int col = col0 + j * 8 + t % 4 * 2;
    store_pair(c, m, n, row, col, d[4 * j], d[4 * j + 1]);
    store_pair(c, m, n, row + 8, col, d[4 * j + 2], d[4 * j + 3]);
  }
}

// [snippet:wgmma_kernel]
// What it adds over tma_mma: the tensor cores read A and B from shared memory themselves (no
// ldmatrix through registers), 64 × 256 × 16 at a time per warp group, asynchronously; and the
// block is split by role. The producer thread runs ahead as far as the stages allow, waiting only
// on a stage's "empty" barrier (both multiplying groups have finished with it); each consumer
// group waits only on the stage's "full" barrier (its bytes have landed). No __syncthreads in the
// loop: loads and multiplies of different k-steps overlap freely.
template <typename T>
__device__ void wgmma_tile(const CUtensorMap& map_a, const CUtensorMap& map_b, float* c, int m, int n, int k) {
  extern __shared__ unsigned char shared_bytes[];
  unsigned char* shared = aligned_1024(shared_bytes);
  auto* full = reinterpret_cast<std::uint64_t*>(shared + kWgStages * kWgStageBytes);
  std::uint64_t* empty = full + kWgStages;
  const int2 tile =
      tile_of(static_cast<int>(blockIdx.x), (m + kWgBlockM - 1) / kWgBlockM, (n + kWgBlockN - 1) / kWgBlockN);
  const int row0 = tile.x * kWgBlockM, col0 = tile.y * kWgBlockN;
  const int steps = (k + kWgBlockK - 1) / kWgBlockK;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kWgStages; ++s) {
      mbarrier_init(&full[s], 1);              // the producer's arrival (with the bytes it expects)
      mbarrier_init(&empty[s], kWgConsumers);  // one arrival per consumer group
    }
    fence_barrier_init();
  }
  __syncthreads();
  // The warp group's number, read from lane 0: the same in every lane by construction, which the
  // compiler cannot see in threadIdx.x / 128 — and it must, or it serialises the wgmma
  // instructions of a path it thinks divergent (ptxas warning C7520).
  const int group = __shfl_sync(0xffffffff, static_cast<int>(threadIdx.x) / 128, 0);
  if (group == 0) {  // the producer: one thread issues every copy
    if (threadIdx.x != 0) return;
    for (int step = 0; step < steps; ++step) {
      const int s = step % kWgStages, k0 = step * kWgBlockK;
      if (step >= kWgStages) mbarrier_wait(&empty[s], (step / kWgStages - 1) % 2);  // its previous use is over
      unsigned char* stage = shared + s * kWgStageBytes;
      mbarrier_expect_bytes(&full[s], kWgStageBytes);
      tma_load(stage, map_a, k0, row0, &full[s]);
      for (int box = 0; box < kWgBlockN / 64; ++box) {
        tma_load(stage + kWgStageABytes + box * kWgBlockK * kRowBytes, map_b, col0 + box * 64, k0, &full[s]);
      }
    }
    return;
  }
  const int consumer = group - 1;  // rows [64 consumer, 64 consumer + 64) of the tile
  float d[128];
#pragma unroll
  for (float& x : d) x = 0.0f;
  for (int step = 0; step < steps; ++step) {
    const int s = step % kWgStages;
    mbarrier_wait(&full[s], step / kWgStages % 2);
    const std::uint32_t tile_a = shared_address(shared + s * kWgStageBytes) + consumer * 64 * kRowBytes;
    const std::uint32_t tile_b = shared_address(shared + s * kWgStageBytes + kWgStageABytes);
    wgmma_k_step<T>(d, tile_a, tile_b);
    wgmma_wait<0>();  // (ptxas also knows: it would insert the wait before any read of d)
    if (threadIdx.x % 128 == 0) mbarrier_arrive(&empty[s]);  // this group is done with the stage
  }
  wgmma_store(d, c, m, n, row0 + consumer * 64, col0);
}
// [/snippet]

// ---------------------------------------------------------------- persistent pairs of blocks

constexpr int kPairBlocks = 2;                       // blocks a cluster: two tiles one above the other, one B
constexpr int kStoreCols = 32;                       // C leaves through shared memory in boxes of 64 rows × 32 floats
constexpr int kStoreBoxBytes = 64 * kStoreCols * 4;  // 8 KB, 128-byte rows as the swizzle wants
// The stages, their barriers (in 1 KB, to keep what follows aligned), two boxes a consumer group,
// and 1 KB to align the start: 226 KB of the 227 a block may have.
constexpr std::size_t kBoxesOffset = std::size_t{kWgStages} * kWgStageBytes + 1024;
constexpr std::size_t kClusterSharedBytes = kBoxesOffset + std::size_t{kWgConsumers} * 2 * kStoreBoxBytes + 1024;
static_assert(kClusterSharedBytes <= 227 * 1024, "a block of sm_90 has at most 227 KB of shared memory");

// [snippet:wgmma_store_by_tma]
// A consumer group's 64 × 256 sums into C by TMA stores, 64 × 32 at a time through two 8 KB boxes
// in shared memory: the group writes a box (swizzled as C's tensor map says, so that the 8 rows a
// warp writes at once fall in different banks), one thread hands it to the TMA unit, and the group
// fills the other box while the unit copies this one out — after the last box, it goes on to the
// next tile's k-steps while the unit writes this tile's last boxes to global memory.
__device__ __forceinline__ void wgmma_store_by_tma(const float (&d)[128], unsigned char* boxes,
                                                   const CUtensorMap& map_c, int row0, int col0, int group) {
  const int t = static_cast<int>(threadIdx.x) % 128;
  const int row = t / 32 * 16 + t % 32 / 4;  // in the group's 64 rows (and row + 8), as in wgmma_store
#pragma unroll
  for (int q = 0; q < kWgBlockN / kStoreCols; ++q) {
    unsigned char* box = boxes + q % 2 * kStoreBoxBytes;
    if (t == 0) tma_store_wait_reads<1>();  // the store of two boxes ago has read this one
    warp_group_sync(group);
#pragma unroll
    for (int jj = 0; jj < kStoreCols / 8; ++jj) {
      const int j = q * kStoreCols / 8 + jj, col = jj * 8 + t % 4 * 2;  // d[4 j] ...: columns 8 j + 2 (t % 4)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r = row + 8 * half;
        const int at = r * 128 + (((col / 4) ^ (r % 8)) << 4) + col % 4 * 4;  // 16-byte chunk col / 4, swizzled
        *reinterpret_cast<float2*>(box + at) = make_float2(d[4 * j + 2 * half], d[4 * j + 2 * half + 1]);
      }
    }
    fence_for_tma();
    warp_group_sync(group);
    if (t == 0) {
      tma_store(map_c, col0 + q * kStoreCols, row0, box);
      tma_store_commit();
    }
  }
}
// [/snippet]

// [snippet:wgmma_cluster_kernel]
// What it adds over wgmma_tile, four things:
// - Blocks in pairs (a cluster of two) take two tiles one above the other: the same 256 columns
//   of B at every k-step. Each block's producer loads half of them and multicasts it to both: a
//   block asks L2 for 16 + 16 KB a k-step instead of 16 + 32. A stage is loaded again only
//   when the consumers of both blocks are done with it: each consumer group arrives on the
//   stage's empty barrier in both blocks (four arrivals a phase).
// - Persistent blocks: only as many pairs as fit at once, each going on to another pair of tiles
//   (pair, pair + pairs running, ...), so the producer loads the next tile's first k-steps while
//   the consumers store this one's sums.
// - A k-step's wgmma still running while the next is queued: a consumer waits only for the
//   k-step before (wgmma_wait<1>), then releases that one's stage.
// - C written by TMA stores through shared memory (wgmma_store_by_tma), which the consumers do
//   not wait for.
template <typename T>
__device__ void wgmma_cluster_tiles(const CUtensorMap& map_a, const CUtensorMap& map_b, const CUtensorMap& map_c, int m,
                                    int n, int k) {
  extern __shared__ unsigned char shared_bytes[];
  unsigned char* shared = aligned_1024(shared_bytes);
  auto* full = reinterpret_cast<std::uint64_t*>(shared + kWgStages * kWgStageBytes);
  std::uint64_t* empty = full + kWgStages;
  const int tiles_n = (n + kWgBlockN - 1) / kWgBlockN;
  const int pairs_m = ((m + kWgBlockM - 1) / kWgBlockM + kPairBlocks - 1) / kPairBlocks;  // pairs of tile rows
  const int pairs = pairs_m * tiles_n, running = static_cast<int>(gridDim.x) / kPairBlocks;
  const int rank = static_cast<int>(cluster_rank());  // the upper (0) or lower (1) tile of each pair
  const int steps = (k + kWgBlockK - 1) / kWgBlockK;
  // This block's tile of a pair: its first row and column of C. Where the rows of tiles are odd in
  // number, the last pairs' lower tiles lie below C: their A arrives as zeros and their stores are
  // skipped, but their blocks still load half of B for the upper ones.
  auto origin = [&](int pair) {
    const int2 at = tile_of(pair, pairs_m, tiles_n, kBandRows / kPairBlocks);
    return make_int2((at.x * kPairBlocks + rank) * kWgBlockM, at.y * kWgBlockN);
  };
  if (threadIdx.x == 0) {
    for (int s = 0; s < kWgStages; ++s) {
      mbarrier_init(&full[s], 1);                            // this block's producer (and the bytes)
      mbarrier_init(&empty[s], kWgConsumers * kPairBlocks);  // every consumer group of the pair
    }
    fence_barrier_init();
  }
  cluster_sync();  // both blocks' barriers are set up before either block's copies reach them
  const int group = __shfl_sync(0xffffffff, static_cast<int>(threadIdx.x) / 128, 0);
  // The k-steps go through the stages in one sequence over all of a block's tiles: its use-th
  // k-step takes stage use % kWgStages, in that stage's phase use / kWgStages.
  if (group == 0) {
    if (threadIdx.x != 0) return;
    int use = 0;
    for (int pair = static_cast<int>(blockIdx.x) / kPairBlocks; pair < pairs; pair += running) {
      const int2 at = origin(pair);
      for (int step = 0; step < steps; ++step, ++use) {
        const int s = use % kWgStages, k0 = step * kWgBlockK;
        if (use >= kWgStages) mbarrier_wait(&empty[s], (use / kWgStages - 1) % 2);  // both blocks are done
        unsigned char* stage = shared + s * kWgStageBytes;
        mbarrier_expect_bytes(&full[s], kWgStageBytes);  // A from this block, B's halves from both
        tma_load(stage, map_a, k0, at.x, &full[s]);
        constexpr int boxes = kWgBlockN / 64 / kPairBlocks;  // this block's half of B, for both
        for (int i = 0; i < boxes; ++i) {
          const int box = rank * boxes + i;
          tma_load_multicast(stage + kWgStageABytes + box * kWgBlockK * kRowBytes, map_b, at.y + box * 64, k0, &full[s],
                             (1 << kPairBlocks) - 1);
        }
      }
    }
    // The other block arrives on this block's barriers until its last k-step: leave only when
    // the last use of every stage has been released.
    for (int i = 0; i < kWgStages; ++i, ++use) {
      if (use >= kWgStages) mbarrier_wait(&empty[use % kWgStages], (use / kWgStages - 1) % 2);
    }
    return;
  }
  const int consumer = group - 1;
  unsigned char* boxes = shared + kBoxesOffset + consumer * 2 * kStoreBoxBytes;
  auto release = [&](int s) {  // this group is done with stage s, in both blocks
    if (threadIdx.x % 128 != 0) return;
    for (int block = 0; block < kPairBlocks; ++block) mbarrier_arrive_in_block(&empty[s], block);
  };
  int use = 0;
  for (int pair = static_cast<int>(blockIdx.x) / kPairBlocks; pair < pairs; pair += running) {
    const int2 at = origin(pair);
    float d[128];
#pragma unroll
    for (float& x : d) x = 0.0f;
    for (int step = 0; step < steps; ++step, ++use) {
      const int s = use % kWgStages;
      mbarrier_wait(&full[s], use / kWgStages % 2);
      const std::uint32_t tile_a = shared_address(shared + s * kWgStageBytes) + consumer * 64 * kRowBytes;
      wgmma_k_step<T>(d, tile_a, shared_address(shared + s * kWgStageBytes + kWgStageABytes));
      wgmma_wait<1>();                               // the k-step before this one is done:
      if (step > 0) release((use - 1) % kWgStages);  // its stage can be loaded again
    }
    wgmma_wait<0>();
    release((use - 1) % kWgStages);
    wgmma_store_by_tma(d, boxes, map_c, at.x + consumer * 64, at.y, 1 + consumer);
  }
  if (threadIdx.x % 128 == 0) tma_store_wait<0>();  // the boxes are read and written before the block ends
}
// [/snippet]

// The kernels, for T = __half (FP16) and __nv_bfloat16 (BF16).
template <typename T>
__global__ void __launch_bounds__(kMmaThreads)
    tma_mma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, float* c,
                   int m, int n, int k) {
#if GPULAB_HOPPER_BODY
  tma_mma_tile<T>(map_a, map_b, c, m, n, k);
#endif
}
template <typename T>
__global__ void __launch_bounds__(kWgThreads, 1)
    wgmma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, float* c, int m,
                 int n, int k) {
#if GPULAB_HOPPER_BODY
  wgmma_tile<T>(map_a, map_b, c, m, n, k);
#endif
}

template <typename T>
__global__ void __launch_bounds__(kWgThreads, 1)
    wgmma_cluster_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                         const __grid_constant__ CUtensorMap map_c, int m, int n, int k) {
#if GPULAB_HOPPER_BODY
  wgmma_cluster_tiles<T>(map_a, map_b, map_c, m, n, k);
#endif
}

// Whether this build holds sm_90a code: the probe writes 1 only there.
__global__ void sm90a_probe(int* answer) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  *answer = 1;
#else
  *answer = 0;
#endif
}

// ---------------------------------------------------------------- launchers

// The checks both Hopper launchers make; false: nothing to compute (C is empty or zeroed).
bool hopper_shape(const char* name, const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k) {
  if (m < 0 || n < 0 || k < 0) throw std::invalid_argument(std::string(name) + ": m, n and k must not be negative");
  const std::string missing = hopper_missing();
  if (!missing.empty()) throw std::invalid_argument(std::string(name) + ": " + missing);
  if (n % 8 != 0 || k % 8 != 0 || !aligned16(a, b)) {
    throw std::invalid_argument(std::string(name) + ": " + kHopperShapeRule);
  }
  if (m == 0 || n == 0) return false;
  if (k == 0) {  // an empty sum: the tensor maps cannot describe a matrix of no columns
    GPULAB_CUDA_CHECK(cudaMemsetAsync(c, 0, static_cast<std::size_t>(m) * static_cast<std::size_t>(n) * sizeof(float)));
    return false;
  }
  return true;
}

// One launch of a Hopper kernel: A and B described by tensor maps (boxes of box_rows_a × 64 of A,
// kMmaBlockK × 64 of B), more shared memory than the 48 KB a kernel gets without asking.
using HopperKernel = void (*)(CUtensorMap, CUtensorMap, float*, int, int, int);
void launch_hopper(HopperKernel kernel, const char* name, dim3 grid, dim3 threads, std::size_t shared_bytes, Storage s,
                   const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k, int box_rows_a) {
  GPULAB_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)));
  const CUtensorMap map_a = matrix_map(s, a, m, k, box_rows_a);
  const CUtensorMap map_b = matrix_map(s, b, k, n, kMmaBlockK);
  kernel<<<grid, threads, shared_bytes>>>(map_a, map_b, c, m, n, k);
  check_launch(name, grid, threads, shared_bytes);
}

// A launch of wgmma_cluster_kernel: `blocks` blocks in clusters of kPairBlocks. It goes through
// cudaLaunchKernelEx, since <<<...>>> has no place for a cluster's size.
struct PairLaunch {
  cudaLaunchAttribute cluster{};
  cudaLaunchConfig_t config{};
  explicit PairLaunch(unsigned blocks) {
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = kPairBlocks;
    cluster.val.clusterDim.y = cluster.val.clusterDim.z = 1;
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(kWgThreads);
    config.dynamicSmemBytes = kClusterSharedBytes;
    config.attrs = &cluster;  // (hence no copies)
    config.numAttrs = 1;
  }
  PairLaunch(const PairLaunch&) = delete;
  PairLaunch& operator=(const PairLaunch&) = delete;
};

// The persistent grid: how many blocks of wgmma_cluster_kernel run at once, in pairs. Asked once
// (it depends on the GPU, not on the call), with the shared memory each block takes allowed.
int resident_pair_blocks() {
  static const int blocks = [] {
    using ClusterKernel = void (*)(CUtensorMap, CUtensorMap, CUtensorMap, int, int, int);
    for (ClusterKernel kernel : {wgmma_cluster_kernel<__half>, wgmma_cluster_kernel<__nv_bfloat16>}) {
      GPULAB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(kClusterSharedBytes)));
    }
    const PairLaunch launch(kPairBlocks);
    int clusters = 0;  // the same for both kernels: one shape, one use of registers and shared memory
    GPULAB_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, wgmma_cluster_kernel<__half>, &launch.config));
    if (clusters < 1) throw std::runtime_error("wgmma_cluster: no cluster of two blocks fits on this GPU");
    return clusters * kPairBlocks;
  }();
  return blocks;
}

}  // namespace

std::string hopper_missing() {
  const int major = device_attribute(cudaDevAttrComputeCapabilityMajor);
  const int minor = device_attribute(cudaDevAttrComputeCapabilityMinor);
  if (major != 9 || minor != 0) {
    return "TMA and wgmma as written here need a Hopper GPU (compute capability 9.0; this one is " +
           std::to_string(major) + "." + std::to_string(minor) + ")";
  }
  static const bool built = [] {
    int* answer = nullptr;
    GPULAB_CUDA_CHECK(cudaMalloc(&answer, sizeof(int)));
    sm90a_probe<<<1, 1>>>(answer);
    check_launch("sm90a_probe", 1, 1);
    int value = 0;
    GPULAB_CUDA_CHECK(cudaMemcpy(&value, answer, sizeof(int), cudaMemcpyDeviceToHost));
    GPULAB_CUDA_CHECK(cudaFree(answer));
    return value == 1;
  }();
  if (!built) return "this build has no sm_90a code (configure with CMAKE_CUDA_ARCHITECTURES holding 90)";
  return {};
}

void tma_mma(Storage s, const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k) {
  if (!hopper_shape("tma_mma", a, b, c, m, n, k)) return;
  const dim3 grid(static_cast<unsigned>((n + kMmaBlockN - 1) / kMmaBlockN),
                  static_cast<unsigned>((m + kMmaBlockM - 1) / kMmaBlockM));
  const bool fp16 = s == Storage::fp16;
  launch_hopper(fp16 ? tma_mma_kernel<__half> : tma_mma_kernel<__nv_bfloat16>,
                fp16 ? "tma_mma_kernel<__half>" : "tma_mma_kernel<__nv_bfloat16>", grid, dim3(kMmaThreads),
                kTmaSharedBytes, s, a, b, c, m, n, k, kMmaBlockM);
}

void wgmma(Storage s, const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k) {
  if (!hopper_shape("wgmma", a, b, c, m, n, k)) return;
  const dim3 grid(static_cast<unsigned>((n + kWgBlockN - 1) / kWgBlockN) *
                  static_cast<unsigned>((m + kWgBlockM - 1) / kWgBlockM));  // tile_of places each block
  const bool fp16 = s == Storage::fp16;
  launch_hopper(fp16 ? wgmma_kernel<__half> : wgmma_kernel<__nv_bfloat16>,
                fp16 ? "wgmma_kernel<__half>" : "wgmma_kernel<__nv_bfloat16>", grid, dim3(kWgThreads), kWgSharedBytes,
                s, a, b, c, m, n, k, kWgBlockM);
}

void wgmma_cluster(Storage s, const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k) {
  if (!hopper_shape("wgmma_cluster", a, b, c, m, n, k)) return;
  const bool fp16 = s == Storage::fp16;
  const int pairs =
      ((m + kWgBlockM - 1) / kWgBlockM + kPairBlocks - 1) / kPairBlocks * ((n + kWgBlockN - 1) / kWgBlockN);
  const PairLaunch launch(static_cast<unsigned>(std::min(pairs * kPairBlocks, resident_pair_blocks())));
  const CUtensorMap map_a = matrix_map(s, a, m, k, kWgBlockM);
  const CUtensorMap map_b = matrix_map(s, b, k, n, kMmaBlockK);
  const CUtensorMap map_c = float_matrix_map(c, m, n, 64);
  GPULAB_CUDA_CHECK(cudaLaunchKernelEx(&launch.config,
                                       fp16 ? wgmma_cluster_kernel<__half> : wgmma_cluster_kernel<__nv_bfloat16>, map_a,
                                       map_b, map_c, m, n, k));
  check_launch(fp16 ? "wgmma_cluster_kernel<__half>" : "wgmma_cluster_kernel<__nv_bfloat16>", launch.config.gridDim,
               launch.config.blockDim, kClusterSharedBytes);
}

}  // namespace gpulab::mixed
