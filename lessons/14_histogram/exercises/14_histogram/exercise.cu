// Exercise 14 — histogram: bins[v] = how many of the n bytes x[i] equal v, for v = 0 … 255.
// A global atomicAdd per byte is right and slow when many bytes are equal; count into a block's
// own bins in shared memory first.
//   gpulab_grade --exercise 14_histogram

__global__ void histogram_kernel(const unsigned char* x, unsigned int* bins, int n) {
  // TODO 1: a block's 256 bins in shared memory, set to 0; a barrier; each thread counts its bytes
  // there with atomicAdd (a grid-stride loop); a barrier; each bin added to bins[] once.
}

void histogram(const unsigned char* x, unsigned int* bins, int n) {
  // TODO 2: bins start at 0 (cudaMemset), then launch it.
}
