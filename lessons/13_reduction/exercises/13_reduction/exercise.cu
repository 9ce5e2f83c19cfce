// Exercise 13 — reduction: s[0] = x[0] + x[1] + ... + x[n-1], for any n (0 included: the sum is 0).
// One atomicAdd per element would be right and slow; sum each block's elements in shared memory
// (or with warp shuffles) and add one value per block to s.
//   gpulab_grade --exercise 13_reduction

__global__ void sum_kernel(const float* x, float* s, int n) {
  // TODO 1: each thread loads its element (0 past the end) into shared memory; a tree halves the
  // values level by level, with a barrier between levels; thread 0 adds the block's sum to s[0].
}

void sum(const float* x, float* s, int n) {
  // TODO 2: s[0] starts at 0 (cudaMemset), then enough blocks for all n elements.
}
