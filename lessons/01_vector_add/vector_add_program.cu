// [snippet:whole_program]
// A whole CUDA program: c = a + b for n floats. Run it with or without a GPU:
//   gpulab_run lessons/01_vector_add/vector_add_program.cu            (n = 1 000 000)
//   gpulab_run lessons/01_vector_add/vector_add_program.cu -- 500000 one-block
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// Every CUDA call returns an error code; a program that ignores them fails silently.
#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t err = (call);                                                                      \
    if (err != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err)); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

// The kernel: every thread adds one element. Its index comes from its block and its place in it.
__global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];  // the last block may reach past n
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000000;
  const bool one_block = argc > 2 && std::strcmp(argv[2], "one-block") == 0;
  const size_t bytes = n * sizeof(float);

  // 1. Host arrays, with inputs.
  float* a = (float*)std::malloc(bytes);
  float* b = (float*)std::malloc(bytes);
  float* c = (float*)std::malloc(bytes);
  for (int i = 0; i < n; ++i) {
    a[i] = std::sin(i) * std::sin(i);
    b[i] = std::cos(i) * std::cos(i);
  }

  // 2. Device arrays, and the inputs copied to them (host to device).
  float *d_a, *d_b, *d_c;
  CHECK(cudaMalloc(&d_a, bytes));
  CHECK(cudaMalloc(&d_b, bytes));
  CHECK(cudaMalloc(&d_c, bytes));
  CHECK(cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice));

  // 3. The launch: <<<blocks, threads per block>>>. One block of n threads is refused when
  //    n > 1024 — and a launch returns no error code: ask cudaGetLastError().
  if (one_block) {
    add<<<1, n>>>(d_a, d_b, d_c, n);
  } else {
    int threads = 256;
    int blocks = (n + threads - 1) / threads;  // rounded up, so every element has a thread
    add<<<blocks, threads>>>(d_a, d_b, d_c, n);
  }
  CHECK(cudaGetLastError());       // was the launch accepted?
  CHECK(cudaDeviceSynchronize());  // did the kernel run to its end?

  // 4. The result copied back (device to host), and checked: sin² + cos² = 1.
  CHECK(cudaMemcpy(c, d_c, bytes, cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int i = 0; i < n; ++i) worst = std::fmax(worst, std::fabs(c[i] - 1.0));
  std::printf("%d elements added; largest error %.1e\n", n, worst);

  // 5. Free both sides.
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  CHECK(cudaFree(d_c));
  std::free(a);
  std::free(b);
  std::free(c);
  return worst < 1e-6 ? 0 : 1;
}
// [/snippet]
