#pragma once
// Histogram: bins[v] = how many of the n bytes x[i] equal v, for the 256 values of a byte. One
// byte read per element and almost no arithmetic: the ceiling is the memory bandwidth — unless
// many threads add to the same bin at once, which is what this lesson is about.
#include <cstddef>
#include <span>

namespace gpulab::histogram {

inline constexpr int kBins = 256;

// One thread: bins[x[i]]++.
void cpu_sequential(std::span<const unsigned char> x, std::span<unsigned int> bins);
// Every core (OpenMP): a private histogram each, added together at the end.
void cpu_threads(std::span<const unsigned char> x, std::span<unsigned int> bins);

}  // namespace gpulab::histogram

// The GPU launchers: spans of device memory (bins holds kBins counts), queued on the device the
// thread chose (common/backend.hpp). Each sets the bins to 0 first.
namespace gpulab::histogram {

// A thread per byte, each an atomicAdd on its bin in global memory.
void global_atomics(std::span<const unsigned char> x, std::span<unsigned int> bins, int threads);
// A private histogram a block in shared memory (atomics there), added to global memory once.
void shared_privatized(std::span<const unsigned char> x, std::span<unsigned int> bins);
// A private histogram a warp, 16 bytes a load, and runs of equal bytes added as one atomic.
void warp_runs(std::span<const unsigned char> x, std::span<unsigned int> bins);
// The same without the runs, two 16-byte loads in flight per thread.
void warp_copies(std::span<const unsigned char> x, std::span<unsigned int> bins);
// cub::DeviceHistogram::HistogramEven: the CUDA library's histogram (GPU only).
void cub_histogram(std::span<const unsigned char> x, std::span<unsigned int> bins);

}  // namespace gpulab::histogram
