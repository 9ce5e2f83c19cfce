// Exercise 10 — one job over every GPU. (Solution)

__global__ void add(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void split_add(const float* a, const float* b, float* c, int n) {
  int gpus = 0;
  cudaGetDeviceCount(&gpus);
  if (gpus > 16) gpus = 16;
  float* buffers[16][3] = {};
  const int per = n / gpus;
  // SOLUTION: everything queued on every GPU first (asynchronous copies from pinned memory), then
  // each waited for: the GPUs work at the same time.
  for (int g = 0; g < gpus; ++g) {
    const int first = g * per, length = g == gpus - 1 ? n - first : per;
    if (length == 0) continue;
    cudaSetDevice(g);
    const size_t bytes = sizeof(float) * length;
    for (float*& p : buffers[g]) cudaMalloc(&p, bytes);
    cudaMemcpyAsync(buffers[g][0], a + first, bytes, cudaMemcpyHostToDevice);
    cudaMemcpyAsync(buffers[g][1], b + first, bytes, cudaMemcpyHostToDevice);
    add<<<(length + 255) / 256, 256>>>(buffers[g][0], buffers[g][1], buffers[g][2], length);
    cudaMemcpyAsync(c + first, buffers[g][2], bytes, cudaMemcpyDeviceToHost);
  }
  for (int g = 0; g < gpus; ++g) {
    cudaSetDevice(g);
    cudaDeviceSynchronize();
    for (float* p : buffers[g]) cudaFree(p);
  }
  cudaSetDevice(0);
}
