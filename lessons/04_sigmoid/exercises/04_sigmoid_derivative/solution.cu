// Exercise 04b — σ's derivative. (Solution)

__device__ float sigmoid_of(float x) { return 1.0f / (1.0f + expf(-x)); }

__global__ void derivative_kernel(const float* x, float* dy, int n) {
  // SOLUTION: σ once, then s · (1 − s): no second exponential.
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float s = sigmoid_of(x[i]);
    dy[i] = s * (1.0f - s);
  }
}

void sigmoid_derivative(const float* x, float* dy, int n) {
  if (n > 0) derivative_kernel<<<(n + 255) / 256, 256>>>(x, dy, n);
}
