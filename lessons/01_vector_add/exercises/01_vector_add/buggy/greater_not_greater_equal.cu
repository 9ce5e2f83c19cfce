// The guard is `>` where it must be `>=`: thread n writes c[n], one element past the end.
// expect: memcheck
// expect: 1 element past
__global__ void add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > n) return;
  c[i] = a[i] + b[i];
}
void vector_add(const float* a, const float* b, float* c, int n) {
  if (n > 0) add<<<(n + 255) / 256, 256>>>(a, b, c, n);
}
