// A 3 × 3 convolution with a 32 × 32 shared tile, written as the seed article wrote it: each
// thread loads one pixel of its block's tile, and the threads of the last two rows and columns
// then read the tile up to two rows and columns past its end (the halo was never loaded).
// expect: memcheck in kernel conv3x3
// expect: Invalid __shared__ read of size 4 bytes
// expect: seed_conv.cu:24
// expect: 'tile' (32 × 32 × float, declared at
// expect: past its end
// tool: memcheck
// gpu-expect: Invalid __shared__ read of size 4 bytes
#include "../check.h"

#define TILE 32

__global__ void conv3x3(const float* in, const float* k, float* out, int w, int h) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  tile[threadIdx.y][threadIdx.x] = (x < w && y < h) ? in[y * w + x] : 0.0f;
  __syncthreads();
  if (x < w - 2 && y < h - 2) {
    float sum = 0.0f;
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        sum += tile[threadIdx.y + i][threadIdx.x + j] * k[i * 3 + j];
      }
    }
    out[y * (w - 2) + x] = sum;
  }
}

int main() {
  const int w = 96, h = 96;
  float* img = new float[w * h];
  for (int i = 0; i < w * h; ++i) img[i] = static_cast<float>(i % 7);
  float kernel[9] = {0, 1, 0, 1, -4, 1, 0, 1, 0};
  float *d_in, *d_k, *d_out;
  CHECK(cudaMalloc(&d_in, w * h * sizeof(float)));
  CHECK(cudaMalloc(&d_k, sizeof kernel));
  CHECK(cudaMalloc(&d_out, (w - 2) * (h - 2) * sizeof(float)));
  CHECK(cudaMemcpy(d_in, img, w * h * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_k, kernel, sizeof kernel, cudaMemcpyHostToDevice));
  dim3 block(TILE, TILE), grid((w + TILE - 1) / TILE, (h + TILE - 1) / TILE);
  conv3x3<<<grid, block>>>(d_in, d_k, d_out, w, h);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::printf("convolved\n");
  return 0;
}
