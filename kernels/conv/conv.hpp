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

// The GPU launchers take spans of device memory; conv.cu builds for the GPU and the emulator.
namespace gpulab::gpu::conv {
using gpulab::conv::Shape;
#include "conv/conv_launchers.inc"
}  // namespace gpulab::gpu::conv
namespace gpulab::emulated::conv {
using gpulab::conv::Shape;
#include "conv/conv_launchers.inc"
}  // namespace gpulab::emulated::conv
