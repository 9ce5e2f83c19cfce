// Exercise 08 — copies and kernels overlapped: c = a + b where a, b and c are in pinned *host*
// memory (cudaMallocHost). Split the work into `chunks` pieces and give each its own stream:
// copy its part of a and b in, add, copy its part of c out — so one chunk's copies overlap
// another's kernel. Allocate the device buffers you need and free them; when your function
// returns, c must hold the result (the grader reads it at once: synchronise first).
//   gpulab_grade --exercise 08_pipelined_add
// On the emulator the streams run one operation after another, so it checks your results, not
// your overlap; lesson 08's timeline shows the overlap on a GPU.

__global__ void add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void pipelined_add(const float* a, const float* b, float* c, int n, int chunks) {
  // TODO 1: device buffers for a, b and c (cudaMalloc), and `chunks` streams (cudaStreamCreate).
  // TODO 2: for each chunk: its first element and its length (the last one takes the remainder);
  //         cudaMemcpyAsync its a and b in, add<<<blocks, 256, 0, stream>>>, cudaMemcpyAsync its c out.
  // TODO 3: wait for every stream (cudaDeviceSynchronize), then destroy the streams and free.
}
