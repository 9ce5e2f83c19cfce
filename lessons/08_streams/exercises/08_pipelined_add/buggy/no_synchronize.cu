// Returns without waiting for its streams (and leaks its buffers): the copies of c to the host
// may not have happened when the caller reads c. On a GPU the grader finds c unwritten; on the
// emulator, which does each copy at once, the grader asks it what was left queued.
// expect: still queued
__global__ void add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void pipelined_add(const float* a, const float* b, float* c, int n, int chunks) {
  if (n == 0) return;
  float *da = nullptr, *db = nullptr, *dc = nullptr;
  cudaMalloc(&da, sizeof(float) * n);
  cudaMalloc(&db, sizeof(float) * n);
  cudaMalloc(&dc, sizeof(float) * n);
  cudaStream_t streams[64];
  for (int s = 0; s < chunks; ++s) cudaStreamCreate(&streams[s]);
  const int per = n / chunks;
  for (int s = 0; s < chunks; ++s) {
    const int first = s * per, length = s == chunks - 1 ? n - first : per;
    if (length == 0) continue;
    const size_t bytes = sizeof(float) * length;
    cudaMemcpyAsync(da + first, a + first, bytes, cudaMemcpyHostToDevice, streams[s]);
    cudaMemcpyAsync(db + first, b + first, bytes, cudaMemcpyHostToDevice, streams[s]);
    add<<<(length + 255) / 256, 256, 0, streams[s]>>>(da + first, db + first, dc + first, length);
    cudaMemcpyAsync(c + first, dc + first, bytes, cudaMemcpyDeviceToHost, streams[s]);
  }
  for (int s = 0; s < chunks; ++s) cudaStreamDestroy(streams[s]);  // destroying a stream does not wait for it
}
