// Transpose on the CPU: the same lesson in the CPU's caches.
#include <algorithm>
#include <cstddef>

#include "transpose/transpose.hpp"

namespace gpulab::transpose {

namespace {
constexpr std::size_t kTile = 32;

// One tile: rows [r0, r1) and columns [c0, c1) of a.
void tile(const float* a, float* b, std::size_t rows, std::size_t cols, std::size_t r0, std::size_t c0) {
  const std::size_t r1 = std::min(rows, r0 + kTile), c1 = std::min(cols, c0 + kTile);
  for (std::size_t r = r0; r < r1; ++r) {
    for (std::size_t c = c0; c < c1; ++c) b[c * rows + r] = a[r * cols + c];
  }
}
}  // namespace

// Each write jumps a whole row of b ahead: a new cache line per element, evicted before the next
// row of a comes back to its neighbours.
void cpu_naive(std::span<const float> a, std::span<float> b, std::size_t rows, std::size_t cols) {
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) b[c * rows + r] = a[r * cols + c];
  }
}

void cpu_blocked(std::span<const float> a, std::span<float> b, std::size_t rows, std::size_t cols) {
  for (std::size_t r0 = 0; r0 < rows; r0 += kTile) {
    for (std::size_t c0 = 0; c0 < cols; c0 += kTile) tile(a.data(), b.data(), rows, cols, r0, c0);
  }
}

void cpu_threads(std::span<const float> a, std::span<float> b, std::size_t rows, std::size_t cols) {
  const auto row_tiles = static_cast<std::ptrdiff_t>((rows + kTile - 1) / kTile);
  const float* pa = a.data();
  float* pb = b.data();
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t t = 0; t < row_tiles; ++t) {
    for (std::size_t c0 = 0; c0 < cols; c0 += kTile) tile(pa, pb, rows, cols, static_cast<std::size_t>(t) * kTile, c0);
  }
}

}  // namespace gpulab::transpose
