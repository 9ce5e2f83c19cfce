// Exercise 03 — a 2-D grid over a matrix: C = A + B, rows × cols, row-major.
//
// Blocks are 32 threads wide and block / 32 high. Write add_2d_yours (each thread one element:
// its column from x, its row from y, so that a warp reads along a row) and the grid in
// matrix_add() that covers every column and every row.
//   lesson03_matrix_add --variant yours --backend emulated --n 1000
//   gpulab_grade --lesson 03
#include <algorithm>
#include <span>

#include "common/launch.cuh"
#include "exercises/exercises.hpp"

namespace gpulab::exercises {

__global__ void add_2d_yours(const float* a, const float* b, float* c, std::size_t rows, std::size_t cols) {
  // SOLUTION: x numbers the columns, so consecutive threads of a warp touch consecutive addresses.
  const std::size_t col = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::size_t row = std::size_t{blockIdx.y} * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) {
    const std::size_t i = row * cols + col;
    c[i] = a[i] + b[i];
  }
}

void matrix_add(std::span<const float> a, std::span<const float> b, std::span<float> c, std::size_t rows,
                std::size_t cols, int block) {
  if (c.empty()) return;
  const dim3 threads(32, static_cast<unsigned int>(std::max(1, block / 32)));
  // SOLUTION: enough blocks across for the columns, and down for the rows, each rounded up.
  const dim3 grid(static_cast<unsigned int>((cols + threads.x - 1) / threads.x),
                  static_cast<unsigned int>((rows + threads.y - 1) / threads.y));
  add_2d_yours<<<grid, threads>>>(a.data(), b.data(), c.data(), rows, cols);
  check_launch("add_2d_yours", grid, threads);
}

}  // namespace gpulab::exercises
