// The cuBLAS calls a course's labs make (llm.c's dev/cuda programs too): GEMM, strided batched
// GEMM, GEMV, AXPY, DOT, NRM2, SCAL, and cuBLAS's own argument checks, on matrices of small
// integers, whose products are exact in float: the GPU and the emulator (OpenBLAS) print the same.
//   nvcc cublas_calls.cu -lcublas            gpulab_run cublas_calls.cu -lcublas
#include <cublas_v2.h>

#include <cstdio>
#include <vector>

#include "../check.h"

#define CHECK_CUBLAS(call)                                                       \
  do {                                                                           \
    cublasStatus_t s_ = (call);                                                  \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                           \
      std::printf("%s:%d: %s failed: %d\n", __FILE__, __LINE__, #call, (int)s_); \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

double sum(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += x;
  return s;
}

int main() {
  // C (m × n) = A (m × k) B (k × n), column-major, then C = A^T-style with ldc > m.
  const int m = 37, n = 19, k = 23, batch = 3;
  std::vector<float> a(m * k * batch), b(k * n * batch), c(m * n * batch, 0.0f), x(k), y(m);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(static_cast<int>(i % 5) - 2);
  for (int i = 0; i < k; ++i) x[i] = static_cast<float>(i % 4);
  for (int i = 0; i < m; ++i) y[i] = 1.0f;
  float *da, *db, *dc, *dx, *dy, *dresult;
  CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
  CHECK(cudaMalloc(&db, b.size() * sizeof(float)));
  CHECK(cudaMalloc(&dc, c.size() * sizeof(float)));
  CHECK(cudaMalloc(&dx, x.size() * sizeof(float)));
  CHECK(cudaMalloc(&dy, y.size() * sizeof(float)));
  CHECK(cudaMalloc(&dresult, sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dc, c.data(), c.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y.data(), y.size() * sizeof(float), cudaMemcpyHostToDevice));

  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  const float one = 1.0f, zero = 0.0f, two = 2.0f;
  CHECK_CUBLAS(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, da, m, db, k, &zero, dc, m));
  CHECK(cudaMemcpy(c.data(), dc, m * n * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("sgemm: C[0] %.0f, C[m-1] %.0f, C[m n - 1] %.0f, sum %.0f\n", c[0], c[m - 1], c[m * n - 1],
              sum(std::vector<float>(c.begin(), c.begin() + m * n)));
  // C (k × k) = 2 A^T B^T, A read as m × k (lda m) and B as k × m (ldb k).
  CHECK_CUBLAS(cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_T, k, k, m, &two, da, m, db, k, &zero, dc, k));
  CHECK(cudaMemcpy(c.data(), dc, k * k * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("sgemm T T: sum %.0f\n", sum(std::vector<float>(c.begin(), c.begin() + k * k)));
  CHECK_CUBLAS(cublasSgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, da, m, m * k, db, k, k * n,
                                         &zero, dc, m, m * n, batch));
  CHECK(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("strided batched: sums %.0f %.0f %.0f\n", sum(std::vector<float>(c.begin(), c.begin() + m * n)),
              sum(std::vector<float>(c.begin() + m * n, c.begin() + 2 * m * n)),
              sum(std::vector<float>(c.begin() + 2 * m * n, c.end())));
  CHECK_CUBLAS(cublasSgemv(handle, CUBLAS_OP_N, m, k, &one, da, m, dx, 1, &two, dy, 1));
  CHECK(cudaMemcpy(y.data(), dy, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("sgemv: y[0] %.0f, sum %.0f\n", y[0], sum(y));
  CHECK_CUBLAS(cublasSaxpy(handle, m, &two, dy, 1, dy, 1));
  CHECK_CUBLAS(cublasSscal(handle, m, &two, dy, 1));
  float dot = 0, norm = 0;
  CHECK_CUBLAS(cublasSdot(handle, k, dx, 1, dx, 1, &dot));
  CHECK_CUBLAS(cublasSnrm2(handle, 4, dx, 1, &norm));
  CHECK(cudaMemcpy(y.data(), dy, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("saxpy and sscal: sum %.0f; sdot %.0f; snrm2 of (0 1 2 3) %.4f\n", sum(y), dot, norm);
  // The result in device memory.
  CHECK_CUBLAS(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE));
  CHECK_CUBLAS(cublasSdot(handle, k, dx, 1, dx, 1, dresult));
  CHECK(cudaMemcpy(&dot, dresult, sizeof dot, cudaMemcpyDeviceToHost));
  CHECK_CUBLAS(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));
  std::printf("sdot into device memory: %.0f\n", dot);
  // cuBLAS's checks: a leading dimension smaller than the rows.
  std::printf("lda < m: %s\n", cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, da, m - 1, db, k, &zero, dc,
                                           m) == CUBLAS_STATUS_INVALID_VALUE
                                   ? "CUBLAS_STATUS_INVALID_VALUE"
                                   : "accepted");
  CHECK_CUBLAS(cublasDestroy(handle));
  for (float* p : {da, db, dc, dx, dy, dresult}) CHECK(cudaFree(p));
  return 0;
}
