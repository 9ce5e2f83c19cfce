#pragma once
// Convolution, y = x ⋆ w (cross-correlation, as deep-learning frameworks define it), NCHW, single
// precision: x is N × C × H × W, w is K × C × R × S, y is N × K × P × Q (see conv_shape.hpp).
// The CPU versions and the GPU launchers, all with the same argument order.
#include <cstddef>
#include <span>

#include "conv/conv_shape.hpp"

namespace gpulab::conv {

// The loops of the definition, output rows over every core (OpenMP), the innermost loop along
// an output row (vectorised).
void cpu_direct(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape);
// Lowering to a matrix product: each image's patches unrolled into the columns of a matrix
// (im2col), then one OpenBLAS sgemm per image.
void cpu_im2col(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape);

}  // namespace gpulab::conv

// The GPU launchers: spans of device memory, queued on the device the thread chose (common/backend.hpp).
namespace gpulab::conv {

// x (N × C × H × W), w (K × C × R × S), y (N × K × P × Q). Those that need scratch memory take a
// `workspace` of at least *_workspace(shape) floats, allocated once by the caller (not per run).

// One thread per output element, `block` threads per block.
void direct(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape, int block);
// A 16 × 16 output tile per block: its input tile with the halo in shared memory, the filters in
// constant memory (in chunks of up to 64 KB), 8 filters per thread.
void tiled(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape);
// The most floats of one chunk of filters in constant memory (64 KB): C·R·S must not exceed it.
inline constexpr int constant_filter_floats = 16384;
// tiled, then + bias[k] and ReLU before the store: y = max(0, x ⋆ w + b) in one kernel.
void fused_bias_relu(std::span<const float> x, std::span<const float> w, std::span<const float> bias,
                     std::span<float> y, const Shape& shape);
// y = max(0, y + bias[k]) in place: the separate pass an unfused network runs after the convolution.
void bias_relu(std::span<const float> bias, std::span<float> y, const Shape& shape);

// Lowering to GEMM: im2col into the workspace, a GEMM, then back to NCHW. `gemm` multiplies
// row-major device matrices, C (m × n) = A (m × k) · B (k × n): lesson 05's warp_tiled, or cuBLAS.
using Gemm = void (*)(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k);
std::size_t im2col_workspace(const Shape& shape);
void im2col_gemm(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape,
                 std::span<float> workspace, Gemm gemm);
// Its two halves: the patches as columns, (C·R·S) × (N·P·Q), and a K × (N·P·Q) product
// rearranged to N × K × P × Q.
void im2col(std::span<const float> x, std::span<float> columns, const Shape& shape);
void gemm_to_nchw(std::span<const float> product, std::span<float> y, const Shape& shape);

// Implicit GEMM: the same product, but each tile of the patch matrix is gathered from x straight
// into shared memory; no im2col buffer. Its offset table limits C·R·S (see implicit_gemm_limit).
void implicit_gemm(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape);
inline constexpr int implicit_gemm_limit = 3072;  // the largest C · R · S (its table and tiles fit 48 KB)

// Winograd F(2×2, 3×3): 3 × 3 filters, stride 1 only. 16 multiplies per 2 × 2 outputs instead of 36.
bool winograd_applies(const Shape& shape);
std::size_t winograd_workspace(const Shape& shape);
void winograd(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape,
              std::span<float> workspace);

// Winograd F(4×4, 3×3): 36 multiplies per 4 × 4 outputs instead of 144, the 36 products in one
// batched launch. Same shapes as winograd.
std::size_t winograd_4x4_workspace(const Shape& shape);
void winograd_4x4(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape,
                  std::span<float> workspace);

// The debugging lesson: one shared-memory kernel, correct (Bug::none) or with one realistic bug.
enum class Bug { none, shared_index, channels, barrier };
void debug_tiled(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape, Bug bug);

}  // namespace gpulab::conv
