#pragma once
// Matrix multiply, C = A · B in single precision, row-major: A is m × k, B is k × n, C is m × n.
// The CPU versions, the GPU launchers and cuBLAS, all with the same argument order.
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

// The GPU launchers take spans of device memory; matmul.cu builds for the GPU and the emulator.
namespace gpulab::gpu::matmul {
#include "matmul/matmul_launchers.inc"
}
namespace gpulab::emulated::matmul {
#include "matmul/matmul_launchers.inc"
}
