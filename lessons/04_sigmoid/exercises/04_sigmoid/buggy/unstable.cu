// The textbook form e^x / (1 + e^x): inf / inf = NaN once e^x overflows (x > 88).
// expect: edge inputs
// expect: is NaN, expected 1
__device__ float sigmoid_of(float x) { return expf(x) / (1.0f + expf(x)); }
__global__ void sigmoid_kernel(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sigmoid_of(x[i]);
}
void sigmoid(const float* x, float* y, int n) {
  if (n > 0) sigmoid_kernel<<<(n + 255) / 256, 256>>>(x, y, n);
}
