// Exercise 02b — the global index from 3-D blocks: y[i] = 2 x[i] + 1 with blocks of 8 × 8 × 4
// threads (256), a 1-D grid of as many blocks as the array needs.
//   gpulab_grade --exercise 02_index_3d

__global__ void affine(const float* x, float* y, int n) {
  // TODO 1: this thread's number in its block: x fastest, then y, then z.
  // TODO 2: its element: the block's number times the threads per block, plus that; guarded.
}

void affine_3d(const float* x, float* y, int n) {
  // TODO 3: launch affine with blocks of dim3(8, 8, 4) and enough of them for n elements.
}
