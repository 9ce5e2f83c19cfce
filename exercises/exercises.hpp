#pragma once
// The classroom exercises: per lesson, the lesson's key kernel for the learner to write (and its
// launch, where the launch is the point), in exercises/NN_*/. Each file builds for the GPU and for
// the emulator, like the lessons' kernels, with one name per launcher, and each lesson runs it as its variant `yours`.
// -DGPULAB_SOLUTIONS=ON builds exercises/solutions/ instead: the same files, finished.
#include <cstddef>
#include <span>

#include "conv/conv_shape.hpp"

// Spans are device memory; `block` is the threads per block asked for (--block).
namespace gpulab::exercises {

// 01: c = a + b (exercises/01_vector_add/vector_add_exercise.cu).
void vector_add(std::span<const float> a, std::span<const float> b, std::span<float> c, int block);
// 02: y = 2x + 1 on a small 2-D grid of 2-D blocks (exercises/02_thread_hierarchy/).
void thread_hierarchy(std::span<const float> x, std::span<float> y, int block);
// 03: C = A + B, rows × cols, on a 2-D grid (exercises/03_matrix_add/).
void matrix_add(std::span<const float> a, std::span<const float> b, std::span<float> c, std::size_t rows,
                std::size_t cols, int block);
// 04: y = σ(x) (exercises/04_sigmoid/).
void sigmoid(std::span<const float> x, std::span<float> y, int block);
// 05: C (m × n) = A (m × k) · B (k × n), row-major, 16 × 16 tiles in shared memory (exercises/05_matmul/).
void matmul(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k);
inline constexpr int kMatmulTile = 16;
// 06, the debugging exercise: y = x ⋆ w, NCHW (exercises/06_conv/).
void conv(std::span<const float> x, std::span<const float> w, std::span<float> y, const gpulab::conv::Shape& shape);
inline constexpr int kConvTile = 16;
// 07: one layer's own kernels for lesson 07's layered step (exercises/07_tiny_network/):
// A = σ(Z + b) in place, and db[j] = Σ_e Δ[e][j]. `stream` is the step's stream.
void bias_sigmoid(float* z, const float* bias, int rows, int cols, void* stream);
void column_sums(const float* delta, float* db, int rows, int cols, void* stream);

}  // namespace gpulab::exercises
