// Scan on the GPU, y = the prefix sums of x: within a block first (Hillis–Steele, then Blelloch's
// work-efficient tree), across blocks by scan-then-propagate, then the whole array in one pass
// with decoupled look-back.
//
//   scan_hillis_steele   a block's 256 elements in log2(256) steps, each adding to every element
//   scan_blelloch        a block's 512 elements by an up-sweep and a down-sweep (2n additions)
//   add_block_offsets    scan-then-propagate's last step: each block's offset added to its elements
//   scan_lookback        one pass: a tile of 4096 scanned in registers, its offset from the tiles
//                        before it, published and read through flags (decoupled look-back)
//
// Run them: lesson15_scan --n 268435456 --backend gpu   (--shape N:exclusive for exclusive scans)
// Like every kernel file, this one is plain CUDA and builds for the GPU and for the emulator.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

#include <stdexcept>

#include "common/launch.cuh"
#include "common/library_scratch.hpp"
#include "scan/scan.hpp"

namespace cg = cooperative_groups;

namespace gpulab::scan {

namespace {
constexpr int kBlock = 256;
constexpr int kItems = 16;              // scan_lookback: elements a thread (4 uint4 loads)
constexpr int kTile = kBlock * kItems;  // scan_lookback: elements a block
constexpr int kWarps = kBlock / 32;
}  // namespace

// ---------------------------------------------------------------- kernels

// [snippet:scan_hillis_steele]
// A block scans its 256 elements in shared memory: at step k every element adds the one 2^k
// before it, so after log2(256) = 8 steps element t holds the sum of elements 0 … t. Two buffers:
// a step reads the last step's values while it writes new ones (in one buffer, thread t could read
// t − 2^k after that thread overwrote it). 8 steps × 256 additions: n·log2(n) work for n additions'
// worth of result. The exclusive scan is the inclusive one minus the element itself (exact for
// integers). The block's total goes to `block_sums`, for the blocks after it.
__global__ void scan_hillis_steele(const unsigned int* x, unsigned int* y, unsigned int* block_sums, std::size_t n,
                                   bool exclusive) {
  __shared__ unsigned int buffer[2][kBlock];
  const unsigned int t = threadIdx.x;
  const std::size_t i = std::size_t{blockIdx.x} * kBlock + t;
  const unsigned int own = i < n ? x[i] : 0u;
  int in = 0;
  buffer[in][t] = own;
  __syncthreads();
  for (unsigned int offset = 1; offset < kBlock; offset *= 2) {
    buffer[1 - in][t] = t >= offset ? buffer[in][t] + buffer[in][t - offset] : buffer[in][t];
    __syncthreads();
    in = 1 - in;
  }
  const unsigned int inclusive = buffer[in][t];
  if (i < n) y[i] = exclusive ? inclusive - own : inclusive;
  if (block_sums != nullptr && t == kBlock - 1) block_sums[blockIdx.x] = inclusive;
}
// [/snippet]

// [snippet:scan_blelloch]
// What it adds: work efficiency. A block holds 512 elements (two a thread) as a balanced tree in
// shared memory. The up-sweep adds pairs level by level (256 + 128 + … + 1 additions) until the
// last slot holds the total; the down-sweep clears it and walks back down, each node passing its
// value to its left child and value + left to its right child — leaving the exclusive scan.
// 2n additions instead of n·log2(n), and half as many blocks for the same elements.
__global__ void scan_blelloch(const unsigned int* x, unsigned int* y, unsigned int* block_sums, std::size_t n,
                              bool exclusive) {
  __shared__ unsigned int tree[2 * kBlock];
  const unsigned int t = threadIdx.x;
  const std::size_t base = std::size_t{blockIdx.x} * 2 * kBlock;
  const unsigned int first = base + t < n ? x[base + t] : 0u;
  const unsigned int second = base + t + kBlock < n ? x[base + t + kBlock] : 0u;
  tree[t] = first;
  tree[t + kBlock] = second;
  unsigned int stride = 1;
  for (unsigned int pairs = kBlock; pairs > 0; pairs /= 2) {  // up-sweep
    __syncthreads();
    if (t < pairs) tree[stride * (2 * t + 2) - 1] += tree[stride * (2 * t + 1) - 1];
    stride *= 2;
  }
  __syncthreads();
  const unsigned int total = tree[2 * kBlock - 1];
  __syncthreads();  // every thread has read the total before it is cleared
  if (t == 0) tree[2 * kBlock - 1] = 0;
  for (unsigned int pairs = 1; pairs <= kBlock; pairs *= 2) {  // down-sweep
    stride /= 2;
    __syncthreads();
    if (t < pairs) {
      const unsigned int left = stride * (2 * t + 1) - 1, right = stride * (2 * t + 2) - 1;
      const unsigned int carried = tree[left];
      tree[left] = tree[right];
      tree[right] += carried;
    }
  }
  __syncthreads();
  if (base + t < n) y[base + t] = exclusive ? tree[t] : tree[t] + first;
  if (base + t + kBlock < n) y[base + t + kBlock] = exclusive ? tree[t + kBlock] : tree[t + kBlock] + second;
  if (block_sums != nullptr && t == 0) block_sums[blockIdx.x] = total;
}
// [/snippet]

// [snippet:add_block_offsets]
// Scan-then-propagate's last step: the blocks' sums were scanned (exclusively) into `offsets`, so
// offsets[b] is the sum of every block before b; each element of block b adds it. One more read
// and write of y: the two-level method moves each element through memory twice.
__global__ void add_block_offsets(unsigned int* y, const unsigned int* offsets, std::size_t n, std::size_t per_block) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) y[i] += offsets[i / per_block];
}
// [/snippet]

// [snippet:scan_lookback]
// What it adds: one pass over memory. Each block takes the next tile number from a counter (so
// every tile before it belongs to a block that has started), scans its 4096 elements — 16 a
// thread, serially in registers (loaded and stored through shared memory, below), then the threads' totals with warp
// shuffles (cg::exclusive_scan) and the 8 warps' totals the same way — and publishes its tile's total with a flag, A
// (aggregate). Then its first warp looks back, 32 tiles at a time: it adds the published values up to the nearest P
// (inclusive prefix: everything up to that tile), waiting where a tile has published nothing yet, and publishes its own
// P. Usually a P lies within the first 32, so a block waits about one round trip to L2, not for the whole array. Flag
// and value share one 64-bit word, written and read atomically, so a reader sees both or neither.
constexpr unsigned long long kAggregate = 1ull << 32, kPrefix = 2ull << 32;

__device__ unsigned int lookback(const cg::thread_block_tile<32>& warp, unsigned long long* status, unsigned int tile,
                                 unsigned int aggregate) {
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

// A warp's 512 elements pass through shared memory on their way in and out, so that global memory
// sees whole coalesced rows (lane l reads 16 bytes at l·16 of each 512-byte row) while each thread
// scans 16 consecutive elements. Element e of the warp sits at (e / 16)·17 + e % 16: 17 words a
// thread, so the 32 threads' element k lie in 32 different banks.
__device__ unsigned int& slot(unsigned int* exchange, unsigned int e) {
  return exchange[e / kItems * (kItems + 1) + e % kItems];
}

__global__ void scan_lookback(const unsigned int* x, unsigned int* y, unsigned long long* status,
                              unsigned int* next_tile, std::size_t n, bool exclusive) {
  __shared__ unsigned int tile_shared, warp_totals[kWarps], tile_offset;
  __shared__ unsigned int exchange[kWarps][32 * (kItems + 1)];
  const cg::thread_block block = cg::this_thread_block();
  const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const auto lane = static_cast<unsigned int>(warp.thread_rank());
  if (threadIdx.x == 0) tile_shared = atomicAdd(next_tile, 1u);
  block.sync();
  const unsigned int tile = tile_shared;
  unsigned int* mine = exchange[warp.meta_group_rank()];
  const std::size_t warp_first = std::size_t{tile} * kTile + warp.meta_group_rank() * 32 * kItems;
  const bool whole = warp_first + 32 * kItems <= n;  // every element of the warp's 512 exists
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
  warp.sync();
  unsigned int v[kItems];
  unsigned int sum = 0;  // the thread's own 16 elements, serially: v[k] becomes its running sum
  for (unsigned int k = 0; k < kItems; ++k) v[k] = sum += mine[lane * (kItems + 1) + k];
  const unsigned int before_in_warp = cg::exclusive_scan(warp, sum, cg::plus<unsigned int>());
  if (lane == 31) warp_totals[warp.meta_group_rank()] = before_in_warp + sum;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    const unsigned int total = lane < kWarps ? warp_totals[lane] : 0u;
    const unsigned int before_warp = cg::exclusive_scan(warp, total, cg::plus<unsigned int>());
    if (lane < kWarps) warp_totals[lane] = before_warp;
    const unsigned int tile_total = warp.shfl(before_warp + total, kWarps - 1);
    const unsigned int offset = lookback(warp, status, tile, tile_total);
    if (lane == 0) tile_offset = offset;
  }
  block.sync();
  const unsigned int before = tile_offset + warp_totals[warp.meta_group_rank()] + before_in_warp;
  unsigned int previous = 0;  // the thread's running sum before element k
  for (unsigned int k = 0; k < kItems; ++k) {
    mine[lane * (kItems + 1) + k] = before + (exclusive ? previous : v[k]);
    previous = v[k];
  }
  warp.sync();
  if (whole) {
    auto* y4 = reinterpret_cast<uint4*>(y + warp_first);
    for (unsigned int q = 0; q < kItems / 4; ++q) {
      const unsigned int e = (q * 32 + lane) * 4;
      y4[q * 32 + lane] = make_uint4(slot(mine, e), slot(mine, e + 1), slot(mine, e + 2), slot(mine, e + 3));
    }
  } else {
    for (unsigned int k = 0; k < kItems; ++k) {
      const unsigned int e = k * 32 + lane;
      if (warp_first + e < n) y[warp_first + e] = slot(mine, e);
    }
  }
}
// [/snippet]

// ---------------------------------------------------------------- launchers

namespace {

void check_sizes(std::span<const unsigned int> x, std::span<unsigned int> y) {
  if (x.size() != y.size()) throw std::invalid_argument("scan: x and y must have the same length");
}

enum class BlockScan { hillis_steele, blelloch };

// One of the block scans over `blocks` blocks (named at the launch, so reports name the kernel).
void launch_block_scan(BlockScan kind, unsigned int blocks, const unsigned int* x, unsigned int* y, unsigned int* sums,
                       std::size_t n, bool exclusive) {
  if (kind == BlockScan::hillis_steele) {
    scan_hillis_steele<<<blocks, kBlock>>>(x, y, sums, n, exclusive);
    check_launch("scan_hillis_steele", dim3(blocks), dim3(kBlock));
  } else {
    scan_blelloch<<<blocks, kBlock>>>(x, y, sums, n, exclusive);
    check_launch("scan_blelloch", dim3(blocks), dim3(kBlock));
  }
}

// Scan-then-propagate: each block scans its part and leaves its total in `sums`; the totals are
// scanned exclusively (the same way, recursively, in place: a few hundred thousand become a few
// thousand, then one block's worth); each block's offset is added back. Each level's sums have a
// scratch buffer of their own (library_scratch's slot), kept between calls.
void scan_then_propagate(BlockScan kind, const unsigned int* x, unsigned int* y, std::size_t n, bool exclusive,
                         int level = 0) {
  const unsigned int per_block = kind == BlockScan::hillis_steele ? kBlock : 2 * kBlock;
  const unsigned int blocks = blocks_for(n, per_block);
  if (blocks == 1) {
    launch_block_scan(kind, 1, x, y, nullptr, n, exclusive);
    return;
  }
  auto* sums = static_cast<unsigned int*>(library_scratch(std::size_t{blocks} * sizeof(unsigned int), level));
  launch_block_scan(kind, blocks, x, y, sums, n, exclusive);
  scan_then_propagate(kind, sums, sums, blocks, true, level + 1);
  const dim3 grid(blocks_for(n, kBlock));
  add_block_offsets<<<grid, kBlock>>>(y, sums, n, per_block);
  check_launch("add_block_offsets", grid, dim3(kBlock));
}

}  // namespace

void hillis_steele(std::span<const unsigned int> x, std::span<unsigned int> y, bool exclusive) {
  check_sizes(x, y);
  if (x.empty()) return;
  scan_then_propagate(BlockScan::hillis_steele, x.data(), y.data(), x.size(), exclusive);
}

void blelloch(std::span<const unsigned int> x, std::span<unsigned int> y, bool exclusive) {
  check_sizes(x, y);
  if (x.empty()) return;
  scan_then_propagate(BlockScan::blelloch, x.data(), y.data(), x.size(), exclusive);
}

void decoupled_lookback(std::span<const unsigned int> x, std::span<unsigned int> y, bool exclusive) {
  check_sizes(x, y);
  if (x.empty()) return;
  if (!aligned16(x.data(), y.data())) throw std::invalid_argument("scan decoupled_lookback: 16-byte aligned arrays");
  const unsigned int tiles = blocks_for(x.size(), kTile);
  // Each tile's status word (0: nothing published yet) and the tile counter, zeroed on the stream.
  const std::size_t bytes = std::size_t{tiles} * sizeof(unsigned long long) + sizeof(unsigned long long);
  auto* status = static_cast<unsigned long long*>(library_scratch(bytes, -1));
  GPULAB_CUDA_CHECK(cudaMemsetAsync(status, 0, bytes, 0));
  auto* next_tile = reinterpret_cast<unsigned int*>(status + tiles);
  scan_lookback<<<tiles, kBlock>>>(x.data(), y.data(), status, next_tile, x.size(), exclusive);
  check_launch("scan_lookback", dim3(tiles), dim3(kBlock));
}

}  // namespace gpulab::scan
