// Exercise 10 — one job over every GPU: c = a + b where a, b and c are in pinned host memory.
// Give each of the cudaGetDeviceCount() GPUs its share of the elements: on each (cudaSetDevice),
// allocate its part, copy it in, add, copy it out — queued on every GPU before waiting for any,
// so they work at once. When your function returns, c must hold the whole result. (With one GPU,
// or on the emulator, the one device takes everything.)
//   gpulab_grade --exercise 10_split_add

__global__ void add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void split_add(const float* a, const float* b, float* c, int n) {
  // TODO 1: how many GPUs (cudaGetDeviceCount), and each one's first element and length (the last
  //         takes the remainder).
  // TODO 2: for each GPU: cudaSetDevice(g); its buffers; cudaMemcpyAsync in; add<<<…>>>; cudaMemcpyAsync out.
  // TODO 3: for each GPU: cudaSetDevice(g); cudaDeviceSynchronize(); free its buffers.
}
