// Stream compaction, scan's first application: keep the elements of x below a threshold, in their
// order, with no gaps. Where element i goes is the number of kept elements before it — an
// exclusive scan of the flags "kept or not". y[0] is how many were kept, y[1 …] the kept elements.
//
//   compact_flags      1 where an element is kept, 0 where not
//   compact_scatter    each kept element to 1 + its flag's exclusive scan
//   compact_lookback   one pass: a tile's flags counted and scanned, its place from the tiles
//                      before it by decoupled look-back, its kept elements written side by side
//
// Run them: lesson15_scan --shape 268435456:compact --backend gpu   (N:compact:P keeps P %)
// Like every kernel file, this one is plain CUDA and builds for the GPU and for the emulator.
#include <stdexcept>

#include "common/launch.cuh"
#include "common/library_scratch.hpp"
#include "scan/one_pass.cuh"
#include "scan/scan.hpp"

namespace cg = cooperative_groups;

namespace gpulab::scan {

using namespace gpulab::one_pass;

// ---------------------------------------------------------------- kernels

// [snippet:compact_three_pass]
// Three passes, each simple: flags, their exclusive scan (any scan of this lesson: the fastest,
// decoupled look-back), and a scatter that writes each kept element where the scan says. The
// flags and their scan go through memory: 4 + 4 + 4 bytes written and read again per element.
__global__ void compact_flags(const unsigned int* x, unsigned int* flags, std::size_t n, unsigned int below) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) flags[i] = x[i] < below ? 1u : 0u;
}

__global__ void compact_scatter(const unsigned int* x, const unsigned int* before, unsigned int* y, std::size_t n,
                                unsigned int below) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const bool kept = x[i] < below;
  if (kept) y[1 + before[i]] = x[i];
  if (i == n - 1) y[0] = before[i] + (kept ? 1u : 0u);  // the count: kept before the last, and it
}
// [/snippet]

// [snippet:compact_lookback]
// What it adds: one pass. scan_lookback's tile, with the flags scanned instead of the values:
// each thread counts its kept elements among its 16, the block and the look-back give the
// number kept before the thread, and the kept elements are packed side by side in the warp's
// shared memory first, so that global memory sees each warp's run written in coalesced rows.
// Reads 4 bytes an element and writes 4 a kept one: nothing else goes through memory.
__global__ void compact_lookback(const unsigned int* x, unsigned int* y, unsigned long long* status,
                                 unsigned int* next_tile, std::size_t n, unsigned int below) {
  __shared__ TileShared shared;
  const cg::thread_block block = cg::this_thread_block();
  const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const WarpTile t = load_next_tile(block, warp, next_tile, shared, x, n);
  unsigned int value[kItems];
  unsigned int kept = 0;  // how many of the thread's 16 are kept
  for (unsigned int k = 0; k < kItems; ++k) {
    value[k] = t.mine[t.lane * (kItems + 1) + k];
    if (t.first + t.lane * kItems + k < n && value[k] < below) ++kept;
  }
  const Place place = place_in_tile(block, warp, status, t.tile, kept, shared);
  // (place_in_tile's barriers fell after every lane read its values: `mine` may be written now.)
  unsigned int at = place.in_warp;  // the thread's kept elements, packed from the warp's start
  for (unsigned int k = 0; k < kItems; ++k) {
    if (t.first + t.lane * kItems + k < n && value[k] < below) t.mine[at++] = value[k];
  }
  warp.sync();
  const unsigned int warp_kept = warp.shfl(at, 31);  // lane 31's end is the warp's count
  unsigned int* out = y + 1 + place.before_tile + place.before_warp;
  for (unsigned int e = t.lane; e < warp_kept; e += 32) out[e] = t.mine[e];
  if (t.tile == gridDim.x - 1 && block.thread_rank() == 0) y[0] = place.before_tile + place.tile_total;
}
// [/snippet]

// ---------------------------------------------------------------- launchers

namespace {

void check_sizes(std::span<const unsigned int> x, std::span<unsigned int> y) {
  if (y.empty() || y.size() > x.size() + 1) {
    throw std::invalid_argument("compaction: y holds the count and the kept elements: 1 to n + 1 elements");
  }
}

}  // namespace

void compact_three_pass(std::span<const unsigned int> x, std::span<unsigned int> y, unsigned int below) {
  check_sizes(x, y);
  if (x.empty()) {
    GPULAB_CUDA_CHECK(cudaMemsetAsync(y.data(), 0, sizeof(unsigned int), 0));
    return;
  }
  const std::size_t n = x.size();
  auto* flags = static_cast<unsigned int*>(library_scratch(n * sizeof(unsigned int), 10));
  auto* before = static_cast<unsigned int*>(library_scratch(n * sizeof(unsigned int), 11));
  const dim3 grid(blocks_for(n, kBlock));
  compact_flags<<<grid, kBlock>>>(x.data(), flags, n, below);
  check_launch("compact_flags", grid, dim3(kBlock));
  // scan.cu's one-pass scan, through its one name (the build this thread runs on).
  ::gpulab::scan::decoupled_lookback(std::span<const unsigned int>(flags, n), std::span<unsigned int>(before, n), true);
  compact_scatter<<<grid, kBlock>>>(x.data(), before, y.data(), n, below);
  check_launch("compact_scatter", grid, dim3(kBlock));
}

void compact_one_pass(std::span<const unsigned int> x, std::span<unsigned int> y, unsigned int below) {
  check_sizes(x, y);
  if (x.empty()) {
    GPULAB_CUDA_CHECK(cudaMemsetAsync(y.data(), 0, sizeof(unsigned int), 0));
    return;
  }
  if (!aligned16(x.data())) throw std::invalid_argument("compaction compact_one_pass: a 16-byte aligned x");
  const unsigned int tiles = blocks_for(x.size(), kTile);
  const LookbackScratch scratch = fresh_lookback_scratch(tiles, -2);
  compact_lookback<<<tiles, kBlock>>>(x.data(), y.data(), scratch.status, scratch.next_tile, x.size(), below);
  check_launch("compact_lookback", dim3(tiles), dim3(kBlock));
}

}  // namespace gpulab::scan
