// Exercise 03c — a matrix's row sums: s[r] = Σ over c of a[r][c], a rows × cols, row-major.
// One thread per row is enough here (the parallel reductions do better).
//   gpulab_grade --exercise 03_row_sums

__global__ void row_sums_kernel(const float* a, float* s, int rows, int cols) {
  // TODO 1: one thread per row, guarded; add the row's cols elements.
}

void row_sums(const float* a, float* s, int rows, int cols) {
  // TODO 2: launch it with enough threads for every row.
}
