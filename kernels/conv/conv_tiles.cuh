#pragma once
// What the convolution kernel files share: the check of the buffers against the shape, and the
// 16 × 16 output tiles of the shared-memory kernels (conv_direct.cu's tiled, conv_debug.cu).
#include <span>
#include <stdexcept>

#include "conv/conv_shape.hpp"

namespace gpulab::conv {

inline void check_buffers(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape) {
  check_shape(shape);
  if (x.size() != shape.input_size() || w.size() != shape.filter_size() || y.size() != shape.output_size()) {
    throw std::invalid_argument("conv: x, w and y must hold N·C·H·W, K·C·R·S and N·K·P·Q floats for " +
                                to_string(shape));
  }
}

constexpr int kTile = 16;  // a block is 16 × 16 threads, a thread computes kRows outputs down a column
constexpr int kTileThreads = kTile * kTile;

// The input rows (or columns) that `outputs` neighbouring outputs read: their own and the halo.
__host__ __device__ inline int tile_extent(int outputs, int filter, int stride) {
  return (outputs - 1) * stride + filter;
}

}  // namespace gpulab::conv
