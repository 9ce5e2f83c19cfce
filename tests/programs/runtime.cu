// The runtime calls a course's first weeks use, and the errors they give: device queries,
// pinned, managed and pitched memory, memset, function attributes, the occupancy calculator,
// cudaLaunchKernel, and refused launches and copies.
#include "check.h"

__global__ void fill(int* out, int n, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = value + i;
}

__global__ void fill_rows(float* m, size_t pitch, int width, int height) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height) ((float*)((char*)m + y * pitch))[x] = y * 100.0f + x;
}

int main() {
  int count = 0, device = -1;
  CHECK(cudaGetDeviceCount(&count));
  CHECK(cudaSetDevice(0));
  CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int warp = 0, max_threads = 0, sms = 0;
  CHECK(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0));
  CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::printf("devices >= 1: %d; device %d; warp %d/%d; block limit %d/%d; dims %d x %d x %d; SMs agree: %d\n",
              count >= 1, device, prop.warpSize, warp, prop.maxThreadsPerBlock, max_threads, prop.maxThreadsDim[0],
              prop.maxThreadsDim[1], prop.maxThreadsDim[2], sms == prop.multiProcessorCount);
  int driver = 0, runtime = 0;
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaRuntimeGetVersion(&runtime));
  size_t free_bytes = 0, total_bytes = 0;
  CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  std::printf("versions known: %d; memory: free <= total: %d\n", driver > 0 && runtime > 0, free_bytes <= total_bytes);

  const int n = 1000;
  int *d, *pinned, *managed;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMallocHost(&pinned, n * sizeof(int)));
  CHECK(cudaMallocManaged(&managed, n * sizeof(int)));
  CHECK(cudaMemset(d, 0, n * sizeof(int)));
  fill<<<(n + 127) / 128, 128>>>(d, n, 5);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(pinned, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  int value = 7;
  int size = n;
  void* args[] = {&managed, &size, &value};
  CHECK(cudaLaunchKernel(fill, dim3((n + 255) / 256), dim3(256), args, 0, nullptr));
  CHECK(cudaDeviceSynchronize());
  std::printf("kernel: %d %d; cudaLaunchKernel: %d %d\n", pinned[0], pinned[n - 1], managed[0], managed[n - 1]);

  float* m;
  size_t pitch = 0;
  CHECK(cudaMallocPitch(&m, &pitch, 37 * sizeof(float), 5));
  fill_rows<<<dim3(2, 1), dim3(32, 8)>>>(m, pitch, 37, 5);
  CHECK(cudaGetLastError());
  float host[5][37];
  CHECK(cudaMemcpy2D(host, 37 * sizeof(float), m, pitch, 37 * sizeof(float), 5, cudaMemcpyDeviceToHost));
  std::printf("pitch >= row: %d; m[4][36] = %.0f\n", pitch >= 37 * sizeof(float), host[4][36]);

  cudaFuncAttributes attributes;
  CHECK(cudaFuncGetAttributes(&attributes, fill));
  int blocks = 0, min_grid = 0, best_block = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fill, 256, 0));
  CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &best_block, fill, 0, 0));
  std::printf(
      "attributes: max threads %d; occupancy: %d blocks of 256 fit (>= 1: %d); suggested block a multiple of "
      "32: %d\n",
      attributes.maxThreadsPerBlock, blocks > 0, blocks >= 1, best_block % 32 == 0 && best_block > 0);

  fill<<<1, 2048>>>(d, n, 0);  // more threads than a block may have
  cudaError_t refused = cudaGetLastError();
  std::printf("<<<1, 2048>>>: %s (%s); then %s\n", cudaGetErrorString(refused), cudaGetErrorName(refused),
              cudaGetErrorName(cudaGetLastError()));
  fill<<<0, 32>>>(d, n, 0);
  const cudaError_t peeked = cudaPeekAtLastError();
  const cudaError_t got = cudaGetLastError();
  std::printf("<<<0, 32>>>: %s; peek then get agree: %d\n", cudaGetErrorName(peeked), peeked == got);
  cudaError_t wrong = cudaMemcpy(d, pinned, 2 * n * sizeof(int), cudaMemcpyHostToDevice);
  std::printf("copying twice the buffer: %s\n", cudaGetErrorName(wrong));
  cudaGetLastError();
  CHECK(cudaFree(d));
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(managed));
  CHECK(cudaFree(m));
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaDeviceReset());
  return 0;
}
