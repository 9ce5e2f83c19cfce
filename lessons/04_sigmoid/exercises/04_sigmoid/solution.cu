// Exercise 04 — a __device__ function, right for every float: y = σ(x). (Solution)

__device__ float sigmoid_of(float x) {
  // SOLUTION: for x -> -inf, e^-x overflows to inf and 1 / inf = 0; e^x / (1 + e^x) would be NaN.
  return 1.0f / (1.0f + expf(-x));
}

__global__ void sigmoid_kernel(const float* x, float* y, int n) {
  // SOLUTION
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sigmoid_of(x[i]);
}

void sigmoid(const float* x, float* y, int n) {
  if (n == 0) return;
  const int threads = 256;
  sigmoid_kernel<<<(n + threads - 1) / threads, threads>>>(x, y, n);
}
