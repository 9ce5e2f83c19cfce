// Exercise 03 — a 2-D kernel on a 2-D grid: C = A + B, rows × cols, row-major (element (r, c)
// at r · cols + c), any shape — square or not.
//
// matrix_add is given A, B and C in device memory. Write the kernel — one thread per element,
// x numbering the columns (so a warp reads consecutive addresses) and y the rows, each guarded —
// and launch it on a 2-D grid of 2-D blocks of your choosing that covers the whole matrix.
//   gpulab_grade --exercise 03_matrix_add

__global__ void add_2d(const float* a, const float* b, float* c, int rows, int cols) {
  // TODO 1: this thread's column (from x) and row (from y).
  // TODO 2: threads outside the matrix must not touch it.
  // TODO 3: add the element at row · cols + column.
}

void matrix_add(const float* a, const float* b, float* c, int rows, int cols) {
  // TODO 4: a dim3 block (32 × 8, say) and a dim3 grid with enough blocks across for the columns
  // and down for the rows, each rounded up; launch add_2d (nothing to launch for an empty matrix).
}
