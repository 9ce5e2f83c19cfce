#pragma once
// Small kernels that exercise what the emulator models (barriers, shared memory, warp shuffles
// and votes, atomics, 3-D indices, launch rules, checked mode). The tests run them emulated and
// on the GPU and compare both with the CPU.
#include <cstddef>
#include <cstdint>
#include <span>

#include "base/launch_description.hpp"

// The launchers: spans of device memory, on the device the thread chose (common/backend.hpp).
namespace gpulab::test_kernels {

// Reverses each block's slice of `in` through shared memory: out[b*B + t] = in[b*B + B-1-t].
// Without the barrier, a thread reads a slot another thread has not written yet.
void reverse_in_blocks(std::span<const int> in, std::span<int> out, int block, bool with_barrier);
// One sum per block, by a tree reduction in dynamic shared memory (block must be a power of 2).
void block_sums(std::span<const float> in, std::span<float> sums, int block);
// One sum per warp of 32 consecutive elements, with __shfl_down_sync or __shfl_xor_sync.
void warp_sums(std::span<const float> in, std::span<float> sums, bool use_xor);
// Per warp: the number of positive elements (__ballot_sync), and __any_sync / __all_sync of them.
void warp_votes(std::span<const float> in, std::span<unsigned> counts, std::span<int> any, std::span<int> all);
// How many elements exceed `threshold`, counted with atomicAdd by every thread of every block.
void count_above(std::span<const float> in, float threshold, std::span<unsigned> count, int block);
// The largest and smallest element, with atomicMax and atomicMin: extremes[0] and extremes[1]
// must hold INT_MIN and INT_MAX before the launch.
void extremes(std::span<const int> in, std::span<int> extremes);
// Each thread writes its global linear index at its own position, from 3-D blocks and grids.
void record_indices(std::span<unsigned> out, Dims grid, Dims block);
// C = A B for n x n matrices, 16 x 16 tiles in shared memory.
void tiled_matmul(std::span<const float> a, std::span<const float> b, std::span<float> c, int n);
// The same C = A B on the CPU, in host code of this kernel file (tests/kernels/cpu_multiply.hpp):
// `a`, `b` and `c` are host memory.
void cpu_multiply_in_kernel_file(std::span<const float> a, std::span<const float> b, std::span<float> c, int n);
// Writes `extra` elements past the end of `out` (no bounds guard): checked mode reports it.
void write_past_end(std::span<float> out, int extra);
// Writes through a wild pointer (an address on no page of the process) from one warp.
void write_wild(std::uintptr_t address);
// A barrier, then one thread writes through a wild pointer.
void write_wild_after_barrier(std::uintptr_t address);
// An empty kernel with any configuration, to compare the launch rules.
void empty_launch(Dims grid, Dims block, std::size_t shared_bytes);
// Half a warp waits at a shuffle while the other half waits at a barrier: a deadlock.
void divergent_collectives(std::span<float> out);

}  // namespace gpulab::test_kernels
