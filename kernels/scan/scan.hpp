#pragma once
// Scan (prefix sum): y[i] = x[0] + ... + x[i] (inclusive) or x[0] + ... + x[i-1] (exclusive,
// y[0] = 0), for n unsigned ints. The sums wrap around at 2^32, which is exact and associative:
// every order of the additions gives the same bits, so every variant is checked exactly. One
// read and one write an element: the ceiling is the copy bandwidth.
#include <cstddef>
#include <span>

namespace gpulab::scan {

// One thread, the running sum.
void cpu_sequential(std::span<const unsigned int> x, std::span<unsigned int> y, bool exclusive);
// The standard library's std::inclusive_scan / std::exclusive_scan.
void cpu_std(std::span<const unsigned int> x, std::span<unsigned int> y, bool exclusive);
// Every core (OpenMP): each sums its slice, the slices' sums are scanned, each scans its slice from
// its offset (two passes over the data).
void cpu_threads(std::span<const unsigned int> x, std::span<unsigned int> y, bool exclusive);

// Stream compaction, scan's application: the elements of x below `below`, in order, into
// y[1 …], and how many there were into y[0]. y holds 1 + that count (at most n + 1) elements.
// One thread: std::copy_if.
void compact_cpu(std::span<const unsigned int> x, std::span<unsigned int> y, unsigned int below);

}  // namespace gpulab::scan

// The GPU launchers: spans of device memory, queued on the device the thread chose.
namespace gpulab::scan {

// Hillis–Steele in each block (log2(256) steps, every element added at every step: n·log n
// additions), then the blocks' sums scanned the same way and added back (scan-then-propagate).
void hillis_steele(std::span<const unsigned int> x, std::span<unsigned int> y, bool exclusive);
// Blelloch in each block (an up-sweep and a down-sweep: 2n additions, work-efficient), 512
// elements a block, then scan-then-propagate as above.
void blelloch(std::span<const unsigned int> x, std::span<unsigned int> y, bool exclusive);
// One pass: each block scans a tile of 4096 in registers and warp shuffles, then learns the sum of
// all tiles before it from its predecessors' published sums (decoupled look-back).
void decoupled_lookback(std::span<const unsigned int> x, std::span<unsigned int> y, bool exclusive);
// cub::DeviceScan::InclusiveSum / ExclusiveSum: the CUDA library's scan (GPU only).
void cub_scan(std::span<const unsigned int> x, std::span<unsigned int> y, bool exclusive);

// Stream compaction on the device (compact.cu), y as for compact_cpu: flags, their exclusive scan
// (decoupled_lookback) and a scatter, three passes; or one pass, decoupled_lookback's tile with the
// flags counted and the kept elements packed; or cub::DeviceSelect::If (GPU only).
void compact_three_pass(std::span<const unsigned int> x, std::span<unsigned int> y, unsigned int below);
void compact_one_pass(std::span<const unsigned int> x, std::span<unsigned int> y, unsigned int below);
void compact_cub(std::span<const unsigned int> x, std::span<unsigned int> y, unsigned int below);

}  // namespace gpulab::scan
