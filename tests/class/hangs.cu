// grade: failed — did not finish
// A grid-stride loop that never steps.
__global__ void add(const float* a, const float* b, float* c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;) c[i] = a[i] + b[i];
}

void vector_add(const float* a, const float* b, float* c, int n) {
  if (n == 0) return;
  add<<<4, 256>>>(a, b, c, n);
}
