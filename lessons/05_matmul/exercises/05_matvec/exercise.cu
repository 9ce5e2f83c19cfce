// Exercise 05b — matrix times vector: c = A · b, A is m × k row-major, b has k elements, c has
// m. One thread per row of A (the next step is a warp per row, lesson 05's coalescing).
//   gpulab_grade --exercise 05_matvec

__global__ void matvec_kernel(const float* a, const float* b, float* c, int m, int k) {
  // TODO 1: one thread per row, guarded: the dot product of A's row with b.
}

void matvec(const float* a, const float* b, float* c, int m, int k) {
  // TODO 2: launch it with enough threads for all m rows.
}
