// Exercise 12 — transpose: b = transpose(a), where a is rows × cols and b is cols × rows, both row-major
// (a's element (r, c) at r · cols + c goes to b's (c, r) at c · rows + r). Any shape.
//   gpulab_grade --exercise 12_transpose

__global__ void transpose_kernel(const float* a, float* b, int rows, int cols) {
  // TODO 1: one thread per element of a (column from x, row from y), guarded; write it to b.
}

void transpose(const float* a, float* b, int rows, int cols) {
  // TODO 2: a 2-D grid of 2-D blocks that covers a (nothing to launch when it is empty).
}
