#pragma once
// The pieces of a one-pass scan with decoupled look-back that lesson 15's scan and its stream
// compaction share (scan.cu's scan_lookback, compact.cu's compact_lookback): a block takes a tile
// of 4096 elements (16 a thread), loads it through shared memory so that global memory sees whole
// coalesced rows, scans it, and learns what every tile before it adds up to from its predecessors.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda_runtime.h>

#include <cstddef>

#include "common/cuda_check.hpp"
#include "common/library_scratch.hpp"

// In namespace gpulab (not a build's own): __device__ code, compiled into each build apart.
namespace gpulab::one_pass {

namespace cg = cooperative_groups;

inline constexpr int kBlock = 256;
inline constexpr int kItems = 16;              // elements a thread (4 uint4 loads)
inline constexpr int kTile = kBlock * kItems;  // elements a block
inline constexpr int kWarps = kBlock / 32;
inline constexpr int kWarpElements = 32 * kItems;
inline constexpr int kExchange = 32 * (kItems + 1);  // a warp's shared words (see slot())

// [snippet:lookback]
// Each tile's status is one 64-bit word: its flag in the high half, its value in the low half,
// written and read atomically, so a reader sees both or neither. 0: nothing published yet; A
// (aggregate): the tile's own total; P (inclusive prefix): everything up to and including it.
inline constexpr unsigned long long kAggregate = 1ull << 32, kPrefix = 2ull << 32;

// Publishes the tile's total, then (a warp, 32 tiles at a time) adds the published values back to
// the nearest P, waiting where a tile has published nothing yet, and publishes its own P. Usually a
// P lies within the first 32, so a block waits about one round trip to L2, not for the whole array.
// Returns the sum of every element before the tile.
__device__ inline unsigned int lookback(const cg::thread_block_tile<32>& warp, unsigned long long* status,
                                        unsigned int tile, unsigned int aggregate) {
  const auto lane = static_cast<unsigned int>(warp.thread_rank());
  if (lane == 0) atomicExch(&status[tile], (tile == 0 ? kPrefix : kAggregate) | aggregate);
  if (tile == 0) return 0;
  unsigned int before = 0;
  for (long long end = tile;; end -= 32) {  // the window: tiles end − 32 … end − 1, lane 31 the nearest
    const long long p = end - 32 + lane;
    unsigned long long word = p >= 0 ? atomicAdd(&status[p], 0ull) : kPrefix;  // before tile 0: 0
    while (warp.any(word == 0)) {
      if (word == 0) word = atomicAdd(&status[p], 0ull);  // tile p has published nothing yet
    }
    const unsigned int prefixes = warp.ballot((word & kPrefix) != 0);
    const unsigned int nearest = prefixes == 0 ? 0 : 31 - __clz(static_cast<int>(prefixes));
    const unsigned int value = lane >= nearest ? static_cast<unsigned int>(word) : 0u;
    before += cg::reduce(warp, value, cg::plus<unsigned int>());
    if (prefixes != 0) break;
  }
  if (lane == 0) atomicExch(&status[tile], kPrefix | (before + aggregate));
  return before;
}
// [/snippet]

// A warp's 512 elements pass through shared memory on their way in and out, so that global memory
// sees whole coalesced rows (lane l reads 16 bytes at l·16 of each 512-byte row) while each thread
// scans 16 consecutive elements. Element e of the warp sits at (e / 16)·17 + e % 16: 17 words a
// thread, so the 32 threads' element k lie in 32 different banks.
__device__ inline unsigned int& slot(unsigned int* exchange, unsigned int e) {
  return exchange[e / kItems * (kItems + 1) + e % kItems];
}

// The warp's elements warp_first … warp_first + 511 into its exchange (0 past n): uint4 rows where
// all 512 exist (`whole`), one element a lane and step otherwise.
__device__ inline void load_warp_elements(const unsigned int* x, std::size_t n, std::size_t warp_first, bool whole,
                                          unsigned int lane, unsigned int* mine) {
  if (whole) {
    const auto* x4 = reinterpret_cast<const uint4*>(x + warp_first);
    for (unsigned int q = 0; q < kItems / 4; ++q) {
      const uint4 f = x4[q * 32 + lane];  // coalesced: 32 lanes, 512 consecutive bytes
      const unsigned int e = (q * 32 + lane) * 4;
      slot(mine, e) = f.x, slot(mine, e + 1) = f.y, slot(mine, e + 2) = f.z, slot(mine, e + 3) = f.w;
    }
  } else {
    for (unsigned int k = 0; k < kItems; ++k) {
      const unsigned int e = k * 32 + lane;
      slot(mine, e) = warp_first + e < n ? x[warp_first + e] : 0u;
    }
  }
}

// Where a thread's elements go, once every thread knows the sum of its own 16 (`sum`).
struct Place {
  unsigned int before_tile;  // the sum of every element before the tile
  unsigned int before_warp;  // … before the warp, within the tile
  unsigned int in_warp;      // … before the thread, within the warp
  unsigned int tile_total;   // the tile's own sum
};

// What a block's threads share: the tile's number, each warp's exchange (see slot()), and the
// totals the step between loading and storing passes between warps.
struct TileShared {
  unsigned int tile;
  unsigned int exchange[kWarps][kExchange];
  unsigned int warp_totals[kWarps];
  unsigned int before_tile, tile_total;
};

// A warp's part of its block's tile.
struct WarpTile {
  unsigned int tile;   // the tile's number
  std::size_t first;   // the warp's first element
  bool whole;          // every one of its 512 elements exists
  unsigned int* mine;  // its exchange, holding its elements
  unsigned int lane;
};

// The block takes the next tile number from a counter (so every tile before it belongs to a block
// that has started: a block never waits on one that is not running), and each warp loads its 512
// elements of it into its exchange.
__device__ inline WarpTile load_next_tile(const cg::thread_block& block, const cg::thread_block_tile<32>& warp,
                                          unsigned int* next_tile, TileShared& shared, const unsigned int* x,
                                          std::size_t n) {
  if (block.thread_rank() == 0) shared.tile = atomicAdd(next_tile, 1u);
  block.sync();
  WarpTile t;
  t.tile = shared.tile;
  t.first = std::size_t{t.tile} * kTile + warp.meta_group_rank() * kWarpElements;
  t.whole = t.first + kWarpElements <= n;
  t.mine = shared.exchange[warp.meta_group_rank()];
  t.lane = static_cast<unsigned int>(warp.thread_rank());
  load_warp_elements(x, n, t.first, t.whole, t.lane, t.mine);
  warp.sync();
  return t;
}

// The block's step between loading and storing: the threads' sums scanned with warp shuffles
// (cg::exclusive_scan), the 8 warps' totals the same way by the first warp, which then looks back.
__device__ inline Place place_in_tile(const cg::thread_block& block, const cg::thread_block_tile<32>& warp,
                                      unsigned long long* status, unsigned int tile, unsigned int sum,
                                      TileShared& shared) {
  const auto lane = static_cast<unsigned int>(warp.thread_rank());
  const unsigned int in_warp = cg::exclusive_scan(warp, sum, cg::plus<unsigned int>());
  if (lane == 31) shared.warp_totals[warp.meta_group_rank()] = in_warp + sum;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    const unsigned int total = lane < kWarps ? shared.warp_totals[lane] : 0u;
    const unsigned int before_warp = cg::exclusive_scan(warp, total, cg::plus<unsigned int>());
    if (lane < kWarps) shared.warp_totals[lane] = before_warp;
    const unsigned int tile_total = warp.shfl(before_warp + total, kWarps - 1);
    const unsigned int before_tile = lookback(warp, status, tile, tile_total);
    if (lane == 0) shared.before_tile = before_tile, shared.tile_total = tile_total;
  }
  block.sync();
  return {shared.before_tile, shared.warp_totals[warp.meta_group_rank()], in_warp, shared.tile_total};
}

// The launchers' side (host code, hence an unnamed namespace, as library_scratch's: each build has
// its own copy): every tile's status word zeroed and the tile counter after them, on the stream.
namespace {
struct LookbackScratch {
  unsigned long long* status;
  unsigned int* next_tile;
};
inline LookbackScratch fresh_lookback_scratch(unsigned int tiles, int slot) {
  const std::size_t bytes = std::size_t{tiles} * sizeof(unsigned long long) + sizeof(unsigned long long);
  auto* status = static_cast<unsigned long long*>(library_scratch(bytes, slot));
  GPULAB_CUDA_CHECK(cudaMemsetAsync(status, 0, bytes, 0));
  return {status, reinterpret_cast<unsigned int*>(status + tiles)};
}
}  // namespace

}  // namespace gpulab::one_pass
