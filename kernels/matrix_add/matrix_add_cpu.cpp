// Matrix add on the CPU: the order of the loops is the CPU's own lesson in memory access.
#include <cstddef>

#include "matrix_add/matrix_add.hpp"

namespace gpulab::matrix_add {

void cpu_row_order(std::span<const float> a, std::span<const float> b, std::span<float> c, std::size_t rows,
                   std::size_t cols) {
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t col = 0; col < cols; ++col) c[r * cols + col] = a[r * cols + col] + b[r * cols + col];
  }
}

// Each step of the inner loop jumps a whole row ahead: every access touches a new cache line, and
// the 15 other floats of that line are evicted before the loop comes back for them.
void cpu_column_order(std::span<const float> a, std::span<const float> b, std::span<float> c, std::size_t rows,
                      std::size_t cols) {
  for (std::size_t col = 0; col < cols; ++col) {
    for (std::size_t r = 0; r < rows; ++r) c[r * cols + col] = a[r * cols + col] + b[r * cols + col];
  }
}

void cpu_threads(std::span<const float> a, std::span<const float> b, std::span<float> c, std::size_t rows,
                 std::size_t cols) {
  const float* pa = a.data();
  const float* pb = b.data();
  float* pc = c.data();
  const auto n = static_cast<std::ptrdiff_t>(rows);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t r = 0; r < n; ++r) {
    const std::size_t base = static_cast<std::size_t>(r) * cols;
#pragma omp simd
    for (std::size_t col = 0; col < cols; ++col) pc[base + col] = pa[base + col] + pb[base + col];
  }
}

}  // namespace gpulab::matrix_add
