#pragma once
// What the convolution kernel files share: the check of the buffers against the shape, the
// 16 × 16 output tiles of the shared-memory kernels (conv_direct.cu's tiled, conv_debug.cu), and
// the tiles and buffers of the two Winograd variants.
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>

#include "conv/conv.hpp"  // winograd_applies
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

// Winograd F(m×m, 3×3) (conv_winograd.cu: m = 2, conv_winograd4.cu: m = 4): the output in tiles
// of m × m, tiles_p × tiles_q of them an image, and its buffers — the transformed filters U
// ((m+2)² × K × C), input V ((m+2)² × C × tiles) and products M ((m+2)² × K × tiles) — one after
// another in the workspace.
struct WinogradPlan {
  int tiles_p = 0, tiles_q = 0;
  std::size_t tiles = 0, points = 0;  // tiles in the batch; (m + 2)², the values of a transformed tile
  float *u = nullptr, *v = nullptr, *m = nullptr;
};

inline WinogradPlan winograd_plan(const Shape& s, int outputs) {
  WinogradPlan plan;
  plan.tiles_p = (s.p() + outputs - 1) / outputs;
  plan.tiles_q = (s.q() + outputs - 1) / outputs;
  plan.tiles =
      static_cast<std::size_t>(s.n) * static_cast<std::size_t>(plan.tiles_p) * static_cast<std::size_t>(plan.tiles_q);
  plan.points = static_cast<std::size_t>(outputs + 2) * static_cast<std::size_t>(outputs + 2);
  return plan;
}

inline std::size_t winograd_floats(const Shape& s, const WinogradPlan& plan) {
  const std::size_t k = s.k, c = s.c;
  return plan.points * (k * c + c * plan.tiles + k * plan.tiles);
}
inline std::size_t winograd_floats(const Shape& s, int outputs) {
  return winograd_floats(s, winograd_plan(s, outputs));
}

// Checks what both Winograd launchers need (`name` says which) and places U, V and M in `workspace`.
inline WinogradPlan winograd_buffers(const char* name, std::span<const float> x, std::span<const float> w,
                                     std::span<float> y, const Shape& shape, std::span<float> workspace, int outputs) {
  check_buffers(x, w, y, shape);
  const std::string who = name;
  if (!winograd_applies(shape))
    throw std::invalid_argument(who + ": Winograd's F(m×m, 3×3) needs 3 × 3 filters, stride 1");
  WinogradPlan plan = winograd_plan(shape, outputs);
  if (workspace.size() < winograd_floats(shape, plan)) throw std::invalid_argument(who + ": workspace too small");
  const std::size_t K = shape.k, C = shape.c;
  if (C * plan.tiles >= (std::size_t{1} << 31) || K * plan.tiles >= (std::size_t{1} << 31)) {
    throw std::invalid_argument(who + ": the transformed tiles would have 2^31 elements or more");
  }
  plan.u = workspace.data();
  plan.v = plan.u + plan.points * K * C;
  plan.m = plan.v + plan.points * C * plan.tiles;
  return plan;
}

}  // namespace gpulab::conv
