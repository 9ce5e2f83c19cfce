// Matrix transpose through a shared-memory tile, without and with the padding column that keeps
// a warp's column reads on 32 different banks, on a non-square matrix.
#include <vector>

#include "check.h"

#define TILE 32
#define ROWS 8

template <int Pad>
__global__ void transpose(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + Pad];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) {
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  }
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;  // the block's tile, transposed
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) {
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
  }
}

int main() {
  const int rows = 70, cols = 129;
  std::vector<float> h(rows * cols), t(rows * cols);
  for (int i = 0; i < rows * cols; ++i) h[i] = (float)i;
  float *in, *out;
  CHECK(cudaMalloc(&in, h.size() * sizeof(float)));
  CHECK(cudaMalloc(&out, h.size() * sizeof(float)));
  CHECK(cudaMemcpy(in, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(TILE, ROWS), grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  for (int padded = 0; padded < 2; ++padded) {
    CHECK(cudaMemset(out, 0xFF, h.size() * sizeof(float)));
    if (padded) {
      transpose<1><<<grid, block>>>(in, out, rows, cols);
    } else {
      transpose<0><<<grid, block>>>(in, out, rows, cols);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(t.data(), out, t.size() * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < cols; ++c) wrong += t[c * rows + r] != h[r * cols + c];
    }
    std::printf("transpose %s of %d x %d: %d wrong\n", padded ? "with padding" : "without padding", rows, cols, wrong);
  }
  cudaFree(in);
  cudaFree(out);
  return 0;
}
