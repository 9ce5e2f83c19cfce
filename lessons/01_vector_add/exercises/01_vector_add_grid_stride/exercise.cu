// Exercise 01b — a grid-stride loop: the grid is given (`blocks` blocks, fewer threads than
// elements, as a grid that fills the GPU once would be), so each thread adds several elements.
//   gpulab_grade --exercise 01_vector_add_grid_stride

__global__ void add(const float* a, const float* b, float* c, int n) {
  // TODO 1: start at this thread's element; step by every thread of the grid while i < n.
}

void vector_add_grid_stride(const float* a, const float* b, float* c, int n, int blocks) {
  // TODO 2: launch add with exactly `blocks` blocks of 256 threads.
}
