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
  // TODO 1: this thread's column (x: blockIdx.x, blockDim.x, threadIdx.x) and row (the same in y).
  // TODO 2: only threads inside the matrix (row < rows and col < cols) add their element,
  //         which is at row · cols + col.
}

void matrix_add(std::span<const float> a, std::span<const float> b, std::span<float> c, std::size_t rows,
                std::size_t cols, int block) {
  if (c.empty()) return;
  const dim3 threads(32, static_cast<unsigned int>(std::max(1, block / 32)));
  // TODO 3: a grid of blocks across (x) enough for every column and down (y) for every row.
  const dim3 grid(1, 1);
  add_2d_yours<<<grid, threads>>>(a.data(), b.data(), c.data(), rows, cols);
  check_launch("add_2d_yours", grid, threads);
}

}  // namespace gpulab::exercises
