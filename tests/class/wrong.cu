// grade: failed — c[
// Off by one: the last element of every array is never written.
__global__ void add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n - 1) c[i] = a[i] + b[i];
}

void vector_add(const float* a, const float* b, float* c, int n) {
  if (n == 0) return;
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
