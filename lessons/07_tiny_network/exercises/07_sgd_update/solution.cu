// Exercise 07c — the SGD update. (Solution)

__global__ void sgd_kernel(float* w, const float* g, int n) {
  // SOLUTION
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= 0.05f * g[i];
}

void sgd_update(float* w, const float* g, int n) {
  if (n > 0) sgd_kernel<<<(n + 255) / 256, 256>>>(w, g, n);
}
