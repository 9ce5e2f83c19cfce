// Exercise 02 — find your element in a 2-D grid of 2-D blocks, and cover an array larger than
// the grid.
//
// affine_2d is given x and y, n floats each in device memory, and a grid size: launch exactly
// grid_x × grid_y blocks of 32 × 8 threads — fewer threads than elements, as a grid that fills
// the GPU once would be — and write the kernel so that y[i] = 2 x[i] + 1 for every i < n:
//   1. number the blocks and the threads in a block (x fastest, as CUDA does),
//   2. from them, this thread's first element,
//   3. loop over the array in steps of the whole grid's threads (a grid-stride loop).
//   gpulab_grade --exercise 02_thread_hierarchy

__global__ void affine(const float* x, float* y, int n) {
  // TODO 1: this block's number in the grid: gridDim.x blocks per row of the grid, blockIdx.y rows before it.
  // TODO 2: this thread's number in its block, and how many threads a block has (blockDim.x · blockDim.y).
  // TODO 3: the first element: the threads of all blocks before this one, plus the thread's number.
  // TODO 4: y[i] = 2 x[i] + 1, then i += every thread of the grid, while i < n.
}

void affine_2d(const float* x, float* y, int n, int grid_x, int grid_y) {
  // TODO 5: launch affine on a dim3 grid of grid_x × grid_y blocks of dim3(32, 8) threads.
}
