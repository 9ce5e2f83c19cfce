// Exercise 05c — the first rung of lesson 05's ladder: C = A · B with one thread per element of
// C and no shared memory, any m, n, k (A m × k, B k × n, row-major). The launch is yours.
//   gpulab_grade --exercise 05_matmul_naive

__global__ void matmul_naive(const float* a, const float* b, float* c, int m, int n, int k) {
  // TODO 1: this thread's row (from y) and column (from x); threads outside C stop.
  // TODO 2: the dot product of A's row and B's column into C's element.
}

void matmul(const float* a, const float* b, float* c, int m, int n, int k) {
  // TODO 3: a 2-D grid of 16 × 16 blocks that covers C.
}
