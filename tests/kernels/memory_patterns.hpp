#pragma once
// Kernels whose memory requests are known by heart, to prove the emulator's counts
// (emulator/observers/memory_counter.hpp): one launch each, 256 threads a block.
#include <cstddef>
#include <span>

namespace gpulab::memory_patterns {

// out[i] = in[i * stride] for i < out.size(): 4-byte loads `stride` floats apart.
void gather_strided(std::span<const float> in, std::span<float> out, int stride);
// out[i] = in[0]: every lane of a warp reads one address (a broadcast).
void broadcast(std::span<const float> in, std::span<float> out);
// out = in, four floats a thread with one 16-byte load and store (sizes a multiple of 4).
void copy_float4(std::span<const float> in, std::span<float> out);
// Each warp writes and reads a shared array at lane * stride: stride 1 needs one wavefront,
// 2 two (a 2-way conflict), 32 thirty-two, 33 one again (the padding trick); out gets the sums.
void shared_strided(std::span<float> out, int stride);
// Only the even lanes load: half of each warp's request.
void even_lanes(std::span<const float> in, std::span<float> out);
// 8 blocks of one warp: block b's lanes 0-2 and 16-18 copy six consecutive 16-byte pieces of `in`
// from byte 16·b on into shared memory with cp.async (as lesson 06's Winograd products at a tile's
// edge), then to `out`.
void async_pieces(std::span<const float> in, std::span<float> out);

}  // namespace gpulab::memory_patterns
