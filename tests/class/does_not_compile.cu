// grade: failed — did not compile
// The missing semicolon is the point, and a formatter would join the lines:
// clang-format off
__global__ void add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x
  if (i < n) c[i] = a[i] + b[i];
}

void vector_add(const float* a, const float* b, float* c, int n) { add<<<(n + 255) / 256, 256>>>(a, b, c, n); }
