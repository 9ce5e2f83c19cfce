#pragma once
// Reduction: sum = x[0] + x[1] + ... + x[n-1] for n floats. One float of arithmetic per element
// read, so the copy bandwidth (bytes read) is the ceiling; the lesson is how to combine n values
// in parallel, and what each order of the additions does to the rounding error.
#include <cstddef>
#include <span>

namespace gpulab::reduction {

// One thread, in order, in a float: the order of a plain loop, the largest rounding error.
void cpu_sequential(std::span<const float> x, std::span<float> sum);
// One thread, pairwise: halves summed apart and then added, down to leaves of 256 that 8
// accumulators (one vector register) sum. The error grows with log2(n), not with n.
void cpu_pairwise(std::span<const float> x, std::span<float> sum);
// Every core (OpenMP): each sums its slice pairwise, the slices' sums added in order.
void cpu_threads(std::span<const float> x, std::span<float> sum);

}  // namespace gpulab::reduction

// The GPU launchers: spans of device memory (sum holds one float), queued on the device the thread
// chose (common/backend.hpp). Each sets sum to 0 and adds the blocks' sums to it with atomicAdd.
namespace gpulab::reduction {

// The threads of a block of the tree kernels (a power of two: the tree halves it).
inline constexpr int kBlock = 256;
// A thread per element, each an atomicAdd on the one sum: n additions in a row.
void atomic_per_element(std::span<const float> x, std::span<float> sum, int threads);
// A tree in shared memory, threads t with t % (2·stride) == 0 adding: divergent warps.
void tree_divergent(std::span<const float> x, std::span<float> sum);
// The tree with the first `stride` threads adding: whole warps work or rest.
void sequential_addressing(std::span<const float> x, std::span<float> sum);
// Each thread adds two elements as it loads them: half the blocks, no idle half at the first level.
void add_during_load(std::span<const float> x, std::span<float> sum);
// The last 64 values summed by one warp through register shuffles: no barriers, no shared memory.
void warp_shuffle(std::span<const float> x, std::span<float> sum);
// The same reduction written with cooperative groups (a warp tile and cg::reduce).
void cooperative_groups(std::span<const float> x, std::span<float> sum);
// A fixed grid, each thread summing many float4s before the tree: every load 16 bytes, few atomics.
void vector_loads(std::span<const float> x, std::span<float> sum);
// cub::DeviceReduce::Sum: the CUDA library's reduction (GPU only).
void cub_sum(std::span<const float> x, std::span<float> sum);

// The grid vector_loads launches for n elements on the current device: every block resident at once.
std::size_t vector_loads_blocks(std::size_t n);

}  // namespace gpulab::reduction
