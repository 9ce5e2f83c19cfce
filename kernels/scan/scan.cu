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
#include <stdexcept>

#include "common/launch.cuh"
#include "common/library_scratch.hpp"
#include "scan/one_pass.cuh"
#include "scan/scan.hpp"

namespace cg = cooperative_groups;

namespace gpulab::scan {

// kBlock (threads a block, for every kernel here) and scan_lookback's tiles and helpers.
using namespace gpulab::one_pass;

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
// thread, serially in registers (loaded and stored through shared memory: one_pass.cuh), then the
// threads' totals with warp shuffles and the 8 warps' totals the same way — and learns the sum of
// every tile before it by decoupled look-back (one_pass.cuh's lookback), so it need not wait for
// the whole array before it: about one round trip to L2.
__global__ void scan_lookback(const unsigned int* x, unsigned int* y, unsigned long long* status,
                              unsigned int* next_tile, std::size_t n, bool exclusive) {
  __shared__ TileShared shared;
  const cg::thread_block block = cg::this_thread_block();
  const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const WarpTile t = load_next_tile(block, warp, next_tile, shared, x, n);
  unsigned int v[kItems];
  unsigned int sum = 0;  // the thread's own 16 elements, serially: v[k] becomes its running sum
  for (unsigned int k = 0; k < kItems; ++k) v[k] = sum += t.mine[t.lane * (kItems + 1) + k];
  const Place place = place_in_tile(block, warp, status, t.tile, sum, shared);
  const unsigned int before = place.before_tile + place.before_warp + place.in_warp;
  unsigned int previous = 0;  // the thread's running sum before element k
  for (unsigned int k = 0; k < kItems; ++k) {
    t.mine[t.lane * (kItems + 1) + k] = before + (exclusive ? previous : v[k]);
    previous = v[k];
  }
  warp.sync();
  if (t.whole) {
    auto* y4 = reinterpret_cast<uint4*>(y + t.first);
    for (unsigned int q = 0; q < kItems / 4; ++q) {
      const unsigned int e = (q * 32 + t.lane) * 4;
      y4[q * 32 + t.lane] = make_uint4(slot(t.mine, e), slot(t.mine, e + 1), slot(t.mine, e + 2), slot(t.mine, e + 3));
    }
  } else {
    for (unsigned int k = 0; k < kItems; ++k) {
      const unsigned int e = k * 32 + t.lane;
      if (t.first + e < n) y[t.first + e] = slot(t.mine, e);
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
  const LookbackScratch scratch = fresh_lookback_scratch(tiles, -1);
  scan_lookback<<<tiles, kBlock>>>(x.data(), y.data(), scratch.status, scratch.next_tile, x.size(), exclusive);
  check_launch("scan_lookback", dim3(tiles), dim3(kBlock));
}

}  // namespace gpulab::scan
