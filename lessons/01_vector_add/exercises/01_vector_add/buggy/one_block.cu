// One block of n threads: fine up to 1024 elements, refused past them.
// expect: cudaErrorInvalidValue
// expect: more than 1024 threads
__global__ void add(const float* a, const float* b, float* c, int n) {
  const int i = threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
void vector_add(const float* a, const float* b, float* c, int n) {
  if (n > 0) add<<<1, n>>>(a, b, c, n);
}
