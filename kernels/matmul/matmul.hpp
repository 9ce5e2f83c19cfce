#pragma once
// Matrix multiply, C = A · B in single precision, row-major: A is m × k, B is k × n, C is m × n.
// The CPU versions, the GPU launchers and cuBLAS, all with the same argument order.
#include <cstddef>
#include <span>

namespace gpulab::matmul {

// One thread, the textbook i-j-k loops: the inner loop walks down a column of B, a cache line
// per multiply-add once B outgrows the cache.
void cpu_naive(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k);
// i-k-j: the inner loop walks along rows of B and C, which the compiler vectorises; rows of C
// spread over every core (OpenMP).
void cpu_ikj_threads(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k);
// Blocked for the caches, packed panels, a register-tiled vector micro-kernel for the CPU it
// runs on (AVX-512, AVX2 + FMA or SSE), every core.
void cpu_blocked(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k);
// OpenBLAS sgemm: the CPU library baseline (its own threads).
void cpu_openblas(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k);
// The vector instructions cpu_blocked uses on this CPU ("AVX-512", "AVX2 + FMA", "SSE").
const char* cpu_blocked_isa();

}  // namespace gpulab::matmul

// The GPU launchers: spans of device memory, queued on the device the thread chose (common/backend.hpp).
// The ladder, a rung a file, each one idea over the one before:
//   naive.cu         one thread per element of C; a warp walks down a column of C
//   coalesced.cu     the same, but a warp walks along a row of C: B and C accesses coalesce
//   shared_tiles.cu  32 × 32 tiles of A and B staged in shared memory, each read 32 times there
//   register_1d.cu   each thread computes 8 elements of a column: a B value in a register is reused 8 times
//   register_2d.cu   each thread computes an 8 × 8 block: 16 shared loads feed 64 multiply-adds
//   vectorised.cu    float4 loads from global and shared memory; A stored transposed in shared memory
//   warp_tiled.cu    warp-shaped tiles without bank conflicts, larger tiles, double buffering, split-K
//   pipelined.cu     the same tiles fed by asynchronous copies, three k-steps in flight
// What they share: matmul_shared.cuh. Every kernel takes any m, n and k: tiles that stick out of
// the matrices load zeros and store nothing. Run them: lesson05_matmul --variant all --n 2048
namespace gpulab::matmul {

// memory, row-major: C (m × n) = A (m × k) · B (k × n). Any m, n, k >= 0.

// One thread per element of C, threadIdx.x down the rows. `block` threads per block, as 32 × block/32.
void naive(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k, int block);
// One thread per element of C, threadIdx.x along the rows: coalesced. Blocks as in naive.
void coalesced(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k, int block);
// 32 × 32 tiles in shared memory (blocks of 32 × 32 threads).
void shared_tiles(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k);
// 64 × 64 tiles, 8 results per thread down a column (512 threads).
void register_1d(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k);
// 128 × 128 tiles, an 8 × 8 block per thread (256 threads).
void register_2d(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k);
// register_2d with float4 loads and A transposed in shared memory.
void vectorised(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k);
// Warp-shaped tiles (no bank conflicts), 128 × 256 tiles where they fill the GPU, double buffering.
void warp_tiled(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k);

// warp_tiled's large tiles with four k-steps of 16 in shared memory, B's fed by asynchronous copies
// (cp.async), three steps on their way while one is multiplied.
void pipelined(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k);

// The threads per block naive and coalesced launch for a requested `block` (32 × block / 32).
int naive_threads(int block);

// Theoretical occupancy of each kernel at the block size it launches with.
double naive_occupancy(int block);
double coalesced_occupancy(int block);
double shared_tiles_occupancy();
double register_1d_occupancy();
double register_2d_occupancy();
double vectorised_occupancy();
double warp_tiled_occupancy(int m, int n);  // it picks its tile from the shape
double pipelined_occupancy();

}  // namespace gpulab::matmul
