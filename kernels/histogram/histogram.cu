// Histogram on the GPU, bins[v] = how many bytes of x equal v: a ladder where each rung makes the
// threads fight less over the same counters.
//
//   histogram_global_atomics    a thread per byte, an atomicAdd on its bin in global memory
//   histogram_shared_privatized a block's own 256 bins in shared memory, added to global once
//   histogram_warp_runs         a warp's own bins, 16 bytes a load, a run of equal bytes one atomic
//   histogram_warp_copies       the same without the runs (the SM merges them already), two loads
//                               in flight
//
// Run them: lesson14_histogram --n 268435456 --backend gpu   (--shape N:SKEW for skewed data)
// Like every kernel file, this one is plain CUDA and builds for the GPU and for the emulator.
#include <stdexcept>

#include "common/launch.cuh"
#include "histogram/histogram.hpp"

namespace gpulab::histogram {

namespace {
constexpr int kBlock = 256;
constexpr int kWarps = kBlock / 32;
}  // namespace

// ---------------------------------------------------------------- kernels

// [snippet:histogram_global_atomics]
// Thread i adds 1 to bins[x[i]] with atomicAdd: two threads that add to one bin must not both
// read the old count. Right for any data; as fast as the memory only while the bytes are spread
// over the bins. When many are equal, their atomics on one address in L2 are served one at a time.
__global__ void histogram_global_atomics(const unsigned char* x, unsigned int* bins, std::size_t n) {
  const std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[x[i]], 1u);
}
// [/snippet]

// [snippet:histogram_shared_privatized]
// What it adds: privatisation. Each block counts into its own 256 bins in shared memory (atomics
// there are served by the SM, not by L2, and only the block's 256 threads compete), walking the
// array with a grid-stride loop; at the end it adds each of its bins to global memory once —
// 256 global atomics a block instead of one a byte.
__global__ void histogram_shared_privatized(const unsigned char* x, unsigned int* bins, std::size_t n) {
  __shared__ unsigned int local[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    atomicAdd(&local[x[i]], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    if (local[b] != 0) atomicAdd(&bins[b], local[b]);
  }
}
// [/snippet]

// The block's 8 warp copies of the bins: set to 0 before counting, added to the global bins after.
__device__ void clear_warp_bins(unsigned int (&local)[kWarps][kBins]) {
  for (int b = threadIdx.x; b < kWarps * kBins; b += kBlock) local[b / kBins][b % kBins] = 0;
  __syncthreads();
}

__device__ void add_warp_bins(unsigned int (&local)[kWarps][kBins], unsigned int* bins) {
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += kBlock) {
    unsigned int total = 0;
    for (int w = 0; w < kWarps; ++w) total += local[w][b];
    if (total != 0) atomicAdd(&bins[b], total);
  }
}

// [snippet:histogram_warp_runs]
// What it adds: a copy of the bins per warp (8 KB a block), so only a warp's 32 lanes compete
// for a counter; each thread reads 16 bytes at a time (a uint4) and counts a run of equal bytes
// as one atomicAdd of its length. On spread-out data runs are short and this is the shared
// histogram with fewer collisions; on skewed data (most bytes equal) a thread adds a whole run at
// once, so contention costs almost nothing.
__device__ void count_bytes(unsigned int* warp_bins, unsigned int word, unsigned int& value, unsigned int& run) {
  for (int k = 0; k < 4; ++k) {
    const unsigned int byte = (word >> (8 * k)) & 0xFFu;
    if (byte == value) {
      ++run;
    } else {
      if (run != 0) atomicAdd(&warp_bins[value], run);
      value = byte;
      run = 1;
    }
  }
}

__global__ void histogram_warp_runs(const unsigned char* x, unsigned int* bins, std::size_t n) {
  __shared__ unsigned int local[kWarps][kBins];
  clear_warp_bins(local);
  unsigned int* warp_bins = local[threadIdx.x / 32];
  const std::size_t thread = std::size_t{blockIdx.x} * kBlock + threadIdx.x;
  const std::size_t threads = std::size_t{gridDim.x} * kBlock;
  const std::size_t chunks = n / 16;
  const auto* x16 = reinterpret_cast<const uint4*>(x);
  unsigned int value = 0, run = 0;  // the run this thread is counting
  for (std::size_t c = thread; c < chunks; c += threads) {
    const uint4 v = x16[c];
    count_bytes(warp_bins, v.x, value, run);
    count_bytes(warp_bins, v.y, value, run);
    count_bytes(warp_bins, v.z, value, run);
    count_bytes(warp_bins, v.w, value, run);
  }
  if (run != 0) atomicAdd(&warp_bins[value], run);
  // The n % 16 bytes past the last whole uint4: one each, to the first threads.
  if (thread < n % 16) atomicAdd(&warp_bins[x[16 * chunks + thread]], 1u);
  add_warp_bins(local, bins);
}
// [/snippet]

// [snippet:histogram_warp_copies]
// What it adds — by taking something away: no run logic. Measured on an H100, warp_runs is slower
// than plain atomics on uniform bytes (a compare and a branch per byte for runs of length 1) and
// no faster on all-equal bytes: the SM already merges the lanes of one atomic instruction that hit
// the same address. What does help is two 16-byte loads in flight per thread before the atomics
// that need them.
__device__ void add_bytes(unsigned int* warp_bins, unsigned int word) {
  atomicAdd(&warp_bins[word & 0xFFu], 1u);
  atomicAdd(&warp_bins[(word >> 8) & 0xFFu], 1u);
  atomicAdd(&warp_bins[(word >> 16) & 0xFFu], 1u);
  atomicAdd(&warp_bins[word >> 24], 1u);
}

__device__ void add_chunk(unsigned int* warp_bins, uint4 v) {
  add_bytes(warp_bins, v.x);
  add_bytes(warp_bins, v.y);
  add_bytes(warp_bins, v.z);
  add_bytes(warp_bins, v.w);
}

__global__ void histogram_warp_copies(const unsigned char* x, unsigned int* bins, std::size_t n) {
  __shared__ unsigned int local[kWarps][kBins];
  clear_warp_bins(local);
  unsigned int* warp_bins = local[threadIdx.x / 32];
  const std::size_t thread = std::size_t{blockIdx.x} * kBlock + threadIdx.x;
  const std::size_t threads = std::size_t{gridDim.x} * kBlock;
  const std::size_t chunks = n / 16;
  const auto* x16 = reinterpret_cast<const uint4*>(x);
  std::size_t c = thread;
  for (; c + threads < chunks; c += 2 * threads) {
    const uint4 first = x16[c], second = x16[c + threads];  // both loads issued before any atomic
    add_chunk(warp_bins, first);
    add_chunk(warp_bins, second);
  }
  if (c < chunks) add_chunk(warp_bins, x16[c]);
  if (thread < n % 16) atomicAdd(&warp_bins[x[16 * chunks + thread]], 1u);
  add_warp_bins(local, bins);
}
// [/snippet]

// ---------------------------------------------------------------- launchers

namespace {

// Every kernel adds into the bins, so they start at 0 (queued before the kernel, on its stream).
void zero(std::span<unsigned int> bins) {
  if (bins.size() != kBins) throw std::invalid_argument("histogram: bins must hold 256 counts");
  GPULAB_CUDA_CHECK(cudaMemsetAsync(bins.data(), 0, bins.size() * sizeof(unsigned int)));
}

// A grid-stride loop's grid: every block resident at once, no more than `items` need.
dim3 filled(std::size_t items) { return dim3(grid_to_fill(items, kBlock)); }

}  // namespace

void global_atomics(std::span<const unsigned char> x, std::span<unsigned int> bins, int threads) {
  zero(bins);
  if (x.empty()) return;
  const dim3 grid(blocks_for(x.size(), static_cast<unsigned int>(threads)));
  histogram_global_atomics<<<grid, threads>>>(x.data(), bins.data(), x.size());
  check_launch("histogram_global_atomics", grid, dim3(threads));
}

void shared_privatized(std::span<const unsigned char> x, std::span<unsigned int> bins) {
  zero(bins);
  if (x.empty()) return;
  histogram_shared_privatized<<<filled(x.size()), kBlock>>>(x.data(), bins.data(), x.size());
  check_launch("histogram_shared_privatized", filled(x.size()), dim3(kBlock));
}

void warp_runs(std::span<const unsigned char> x, std::span<unsigned int> bins) {
  zero(bins);
  if (x.empty()) return;
  if (!aligned16(x.data())) throw std::invalid_argument("histogram warp_runs: x must be 16-byte aligned");
  const dim3 grid = filled(std::max<std::size_t>(1, x.size() / 16));
  histogram_warp_runs<<<grid, kBlock>>>(x.data(), bins.data(), x.size());
  check_launch("histogram_warp_runs", grid, dim3(kBlock));
}

void warp_copies(std::span<const unsigned char> x, std::span<unsigned int> bins) {
  zero(bins);
  if (x.empty()) return;
  if (!aligned16(x.data())) throw std::invalid_argument("histogram warp_copies: x must be 16-byte aligned");
  const dim3 grid = filled(std::max<std::size_t>(1, x.size() / 32));
  histogram_warp_copies<<<grid, kBlock>>>(x.data(), bins.data(), x.size());
  check_launch("histogram_warp_copies", grid, dim3(kBlock));
}

}  // namespace gpulab::histogram
