// Exercise 01 — your first kernel, and the launch that gives every element a thread.
//
// vector_add is given three arrays of n floats, already in device memory. Write the kernel so
// that c[i] = a[i] + b[i] for every i < n, and launch it with enough blocks that every element
// gets a thread; the block size is yours to choose. Then grade it (or press Grade in the app):
//   gpulab_grade --exercise 01_vector_add
// Stuck? The lesson's text has hints, from a nudge to nearly the answer (in the app: one at a time).

__global__ void add(const float* a, const float* b, float* c, int n) {
  // TODO 1: which element is this thread's? Built-in variables: blockIdx.x, blockDim.x, threadIdx.x.
  // TODO 2: threads past the end of the array (i >= n) must not touch it.
  // TODO 3: add.
}

void vector_add(const float* a, const float* b, float* c, int n) {
  // TODO 4: launch add<<<blocks, threads>>>(a, b, c, n) with enough blocks of `threads` threads
  // for all n elements (n = 0: launch nothing — a grid of 0 blocks is an error).
}
