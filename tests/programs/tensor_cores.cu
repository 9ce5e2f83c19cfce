// The tensor cores two ways, as course labs write them: WMMA fragments (16 × 16 × 16, FP16 in,
// FP32 sums), and the PTX under them — ldmatrix from shared memory and mma.sync m16n8k16. Small
// integer inputs make every sum exact, so the GPU and the emulator print the same numbers.
#include <cuda_fp16.h>
#include <mma.h>

#include <cstdio>

#include "check.h"

using namespace nvcuda;

__global__ void wmma_16x16x16(const __half* a, const __half* b, float* c, float* doubled) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 1.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
  for (int i = 0; i < acc.num_elements; ++i) acc.x[i] *= 2.0f;  // element-wise: any layout
  wmma::store_matrix_sync(doubled, acc, 16, wmma::mem_col_major);
}

// C (16 × 8) = A (16 × 16, row-major) · B (16 × 8, row-major: k by n), one warp.
__global__ void mma_16x8x16(const __half* a, const __half* b, float* c) {
  __shared__ __align__(16) __half sa[16 * 16];
  __shared__ __align__(16) __half sb[16 * 8];
  const unsigned lane = threadIdx.x;
  for (unsigned i = lane; i < 16 * 16; i += 32) sa[i] = a[i];
  for (unsigned i = lane; i < 16 * 8; i += 32) sb[i] = b[i];
  __syncwarp();
  unsigned ra[4], rb[2];
  // Lane l names row l % 16 of A at column 8 (l / 16): the four 8 × 8 pieces of the A fragment.
  const unsigned address_a = static_cast<unsigned>(__cvta_generic_to_shared(&sa[(lane % 16) * 16 + lane / 16 * 8]));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(ra[0]), "=r"(ra[1]), "=r"(ra[2]), "=r"(ra[3])
               : "r"(address_a));
  // Lanes 0-15 name B's rows k = 0..15; .trans hands each lane its pairs along k.
  const unsigned address_b = static_cast<unsigned>(__cvta_generic_to_shared(&sb[(lane % 16) * 8]));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(rb[0]), "=r"(rb[1])
               : "r"(address_b));
  float d[4] = {0.5f, 0.5f, 0.5f, 0.5f};
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
  const unsigned g = lane / 4, t = lane % 4;
  c[g * 8 + 2 * t] = d[0];
  c[g * 8 + 2 * t + 1] = d[1];
  c[(g + 8) * 8 + 2 * t] = d[2];
  c[(g + 8) * 8 + 2 * t + 1] = d[3];
}

int main() {
  __half ha[256], hb[256];
  float fa[256], fb[256];
  for (int i = 0; i < 256; ++i) {
    fa[i] = static_cast<float>((i * 7) % 5 - 2);  // -2..2
    fb[i] = static_cast<float>((i * 3) % 7 - 3);  // -3..3
    ha[i] = __float2half(fa[i]);
    hb[i] = __float2half(fb[i]);
  }
  __half *da, *db;
  float *dc, *dd, *de;
  CHECK(cudaMalloc(&da, sizeof ha));
  CHECK(cudaMalloc(&db, sizeof hb));
  CHECK(cudaMalloc(&dc, 256 * sizeof(float)));
  CHECK(cudaMalloc(&dd, 256 * sizeof(float)));
  CHECK(cudaMalloc(&de, 128 * sizeof(float)));
  CHECK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
  wmma_16x16x16<<<1, 32>>>(da, db, dc, dd);
  CHECK(cudaGetLastError());
  mma_16x8x16<<<1, 32>>>(da, db, de);  // B: the first 16 × 8 of hb, read as k by n
  CHECK(cudaGetLastError());
  float c[256], d[256], e[128];
  CHECK(cudaMemcpy(c, dc, sizeof c, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(d, dd, sizeof d, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(e, de, sizeof e, cudaMemcpyDeviceToHost));
  int wrong_wmma = 0, wrong_doubled = 0, wrong_mma = 0;
  for (int i = 0; i < 16; ++i) {
    for (int j = 0; j < 16; ++j) {
      float want = 1.0f;
      for (int k = 0; k < 16; ++k) want += fa[i * 16 + k] * fb[k * 16 + j];
      wrong_wmma += c[i * 16 + j] != want;
      wrong_doubled += d[j * 16 + i] != 2 * want;  // stored column-major
    }
    for (int j = 0; j < 8; ++j) {
      float want = 0.5f;
      for (int k = 0; k < 16; ++k) want += fa[i * 16 + k] * fb[k * 8 + j];
      wrong_mma += e[i * 8 + j] != want;
    }
  }
  std::printf("wmma 16x16x16: C[0][0] = %g, C[15][15] = %g, %d of 256 differ from the CPU\n", c[0], c[255], wrong_wmma);
  std::printf("wmma doubled, stored column-major: %d of 256 differ\n", wrong_doubled);
  std::printf("ldmatrix + mma.sync m16n8k16: C[0][0] = %g, C[15][7] = %g, %d of 128 differ from the CPU\n", e[0],
              e[127], wrong_mma);
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  CHECK(cudaFree(dd));
  CHECK(cudaFree(de));
  return wrong_wmma + wrong_doubled + wrong_mma == 0 ? 0 : 1;
}
