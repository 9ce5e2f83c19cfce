// Exercise 07 — a layer's own kernels in lesson 07's layered training step.
//
// The step (kernels/mlp/mlp.cu, layered_step) runs a GEMM and then your bias_sigmoid_yours per
// layer going forward, and going backward your column_sums_yours gives each layer's bias
// gradient. Z, A and Δ are batch × units, row-major: example e's unit j is at [e * cols + j].
//   bias_sigmoid_yours: A = σ(Z + b) in place, b[j] added to column j of every row.
//   column_sums_yours:  db[j] = Σ over the rows e of Δ[e][j], one thread per column.
// The launches are given. The grader checks whole training steps (loss and updated parameters).
//   lesson07_tiny_network --variant yours --backend emulated --n 64
//   gpulab_grade --lesson 07
#include "common/launch.cuh"
#include "exercises/exercises.hpp"

namespace gpulab::exercises {

__global__ void bias_sigmoid_yours(float* z, const float* bias, int rows, int cols) {
  // SOLUTION: one thread per element; the element's column is its index modulo the row length.
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) z[i] = 1.0f / (1.0f + expf(-(z[i] + bias[i % cols])));
}

__global__ void column_sums_yours(const float* delta, float* db, int rows, int cols) {
  // SOLUTION: each thread walks down its column, a row (cols floats) at a time.
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float sum = 0.0f;
  for (int e = 0; e < rows; ++e) sum += delta[e * cols + j];
  db[j] = sum;
}

void bias_sigmoid(float* z, const float* bias, int rows, int cols, void* stream) {
  const long count = static_cast<long>(rows) * cols;
  if (count == 0) return;
  const unsigned int blocks = static_cast<unsigned int>((count + 255) / 256);  // one thread per element
  bias_sigmoid_yours<<<blocks, 256, 0, static_cast<cudaStream_t>(stream)>>>(z, bias, rows, cols);
  check_launch("bias_sigmoid_yours", blocks, 256);
}

void column_sums(const float* delta, float* db, int rows, int cols, void* stream) {
  if (cols == 0) return;
  const unsigned int blocks = static_cast<unsigned int>((cols + 255) / 256);  // one thread per column
  column_sums_yours<<<blocks, 256, 0, static_cast<cudaStream_t>(stream)>>>(delta, db, rows, cols);
  check_launch("column_sums_yours", blocks, 256);
}

}  // namespace gpulab::exercises
