#pragma once
// cuBLAS on the emulator: the calls learners and course labs make most (GEMM, batched GEMM, GEMV,
// AXPY, DOT, SCAL, NRM2), done by OpenBLAS on the emulator's device memory, which is the host's.
// Column-major, with cuBLAS's argument rules and status codes; alpha and beta may point to host or
// device memory (both are the host's here). Each matrix and vector must lie in device memory, as on
// a GPU, where a host pointer faults: here the call fails with CUBLAS_STATUS_EXECUTION_FAILED and
// says which argument. What it writes counts as written for initcheck. Calls run at once, in
// order, as the emulator's streams do; times are CPU times. Not modelled: cublasLt, cublasGemmEx
// and the tensor-core math modes (accepted, computed in FP32 or FP64).
#include <cblas.h>

#include <cstdint>
#include <cstdio>

#include "cuda_runtime.h"
#include "emulator/runtime/memory.hpp"

typedef enum {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_ARCH_MISMATCH = 8,
  CUBLAS_STATUS_MAPPING_ERROR = 11,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_INTERNAL_ERROR = 14,
  CUBLAS_STATUS_NOT_SUPPORTED = 15,
  CUBLAS_STATUS_LICENSE_ERROR = 16
} cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;
typedef enum {
  CUBLAS_DEFAULT_MATH = 0,
  CUBLAS_TENSOR_OP_MATH = 1,
  CUBLAS_PEDANTIC_MATH = 2,
  CUBLAS_TF32_TENSOR_OP_MATH = 3
} cublasMath_t;

struct cublasContext {
  cudaStream_t stream = nullptr;
  cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
};
typedef cublasContext* cublasHandle_t;

namespace gpulab::emulated::blas {

// Whether `count` elements `step` apart from p (a vector; for a column-major matrix of `rows` ×
// `cols`, rows then cols - 1 columns of `ld`) lie in one device buffer; else says so on stderr.
inline bool in_device_memory(const char* call, const char* what, const void* p, std::size_t bytes) {
  if (bytes == 0) return true;
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const Allocation* buffer = find_allocation(a);
  if (buffer != nullptr && a + bytes <= buffer->end()) return true;
  std::fprintf(stderr,
               "========= %s: %s (%zu bytes at %p) is not inside one device buffer (cudaMalloc): on a GPU the "
               "call would fault\n",
               call, what, bytes, p);
  return false;
}
template <typename T>
std::size_t matrix_bytes(int rows, int cols, int ld) {
  return rows <= 0 || cols <= 0 ? 0 : (static_cast<std::size_t>(cols - 1) * ld + rows) * sizeof(T);
}
template <typename T>
std::size_t vector_bytes(int n, int inc) {
  const std::size_t step = static_cast<std::size_t>(inc < 0 ? -inc : inc);
  return n <= 0 ? 0 : (static_cast<std::size_t>(n - 1) * step + 1) * sizeof(T);
}
// An argument cuBLAS refuses: it says so on stdout, as the GPU's cuBLAS does (the parameters
// counted from the first after the handle), and the call returns CUBLAS_STATUS_INVALID_VALUE.
inline cublasStatus_t illegal(const char* call, int parameter) {
  char name[64] = {};
  for (std::size_t i = 0; call[6 + i] != '\0' && i + 1 < sizeof name; ++i)  // cublasSgemm -> SGEMM
    name[i] = static_cast<char>(call[6 + i] >= 'a' && call[6 + i] <= 'z' ? call[6 + i] - 'a' + 'A' : call[6 + i]);
  std::printf(" ** On entry to %s  parameter number %d had an illegal value\n", name, parameter);
  return CUBLAS_STATUS_INVALID_VALUE;
}

inline CBLAS_TRANSPOSE transpose(cublasOperation_t op) { return op == CUBLAS_OP_N ? CblasNoTrans : CblasTrans; }
inline bool valid(cublasOperation_t op) { return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C; }
inline int at_least_one(int n) { return n > 1 ? n : 1; }

// C = alpha op(A) op(B) + beta C, the checks cuBLAS makes first.
template <typename T, typename Gemm>
cublasStatus_t gemm(const char* call, cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                    int k, const T* alpha, const T* a, int lda, const T* b, int ldb, const T* beta, T* c, int ldc,
                    Gemm blas) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  const int a_rows = ta == CUBLAS_OP_N ? m : k, a_cols = ta == CUBLAS_OP_N ? k : m;
  const int b_rows = tb == CUBLAS_OP_N ? k : n, b_cols = tb == CUBLAS_OP_N ? n : k;
  if (!valid(ta)) return illegal(call, 1);
  if (!valid(tb)) return illegal(call, 2);
  if (m < 0) return illegal(call, 3);
  if (n < 0) return illegal(call, 4);
  if (k < 0) return illegal(call, 5);
  if (lda < at_least_one(a_rows)) return illegal(call, 8);
  if (ldb < at_least_one(b_rows)) return illegal(call, 10);
  if (ldc < at_least_one(m)) return illegal(call, 13);
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  if ((k > 0 && !in_device_memory(call, "A", a, matrix_bytes<T>(a_rows, a_cols, lda))) ||
      (k > 0 && !in_device_memory(call, "B", b, matrix_bytes<T>(b_rows, b_cols, ldb))) ||
      !in_device_memory(call, "C", c, matrix_bytes<T>(m, n, ldc))) {
    return CUBLAS_STATUS_EXECUTION_FAILED;
  }
  blas(CblasColMajor, transpose(ta), transpose(tb), m, n, k, *alpha, a, lda, b, ldb, *beta, c, ldc);
  note_host_write(c, matrix_bytes<T>(m, n, ldc));
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace gpulab::emulated::blas

inline cublasStatus_t cublasCreate(cublasHandle_t* handle) {
  if (handle == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *handle = new cublasContext;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasDestroy(cublasHandle_t handle) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t* stream) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  *stream = handle->stream;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSetPointerMode(cublasHandle_t handle, cublasPointerMode_t mode) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->pointer_mode = mode;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasGetPointerMode(cublasHandle_t handle, cublasPointerMode_t* mode) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  *mode = handle->pointer_mode;
  return CUBLAS_STATUS_SUCCESS;
}
inline cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  handle->math = mode;
  return CUBLAS_STATUS_SUCCESS;
}
inline const char* cublasGetStatusName(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS:
      return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
    default:
      return "CUBLAS_STATUS_INTERNAL_ERROR";
  }
}
inline const char* cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS:
      return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "the library was not initialized";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "the GPU program failed to execute";
    default:
      return "an internal operation failed";
  }
}

inline cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                  int k, const float* alpha, const float* a, int lda, const float* b, int ldb,
                                  const float* beta, float* c, int ldc) {
  return gpulab::emulated::blas::gemm("cublasSgemm", handle, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                                      cblas_sgemm);
}
inline cublasStatus_t cublasDgemm(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                                  int k, const double* alpha, const double* a, int lda, const double* b, int ldb,
                                  const double* beta, double* c, int ldc) {
  return gpulab::emulated::blas::gemm("cublasDgemm", handle, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc,
                                      cblas_dgemm);
}
// `batch` products, the i-th on A + i strideA, B + i strideB, C + i strideC.
inline cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb,
                                                int m, int n, int k, const float* alpha, const float* a, int lda,
                                                long long stride_a, const float* b, int ldb, long long stride_b,
                                                const float* beta, float* c, int ldc, long long stride_c, int batch) {
  if (batch < 0) return CUBLAS_STATUS_INVALID_VALUE;
  for (int i = 0; i < batch; ++i) {
    const cublasStatus_t s =
        gpulab::emulated::blas::gemm("cublasSgemmStridedBatched", handle, ta, tb, m, n, k, alpha, a + i * stride_a, lda,
                                     b + i * stride_b, ldb, beta, c + i * stride_c, ldc, cblas_sgemm);
    if (s != CUBLAS_STATUS_SUCCESS) return s;
  }
  return CUBLAS_STATUS_SUCCESS;
}

// y = alpha op(A) x + beta y.
inline cublasStatus_t cublasSgemv(cublasHandle_t handle, cublasOperation_t trans, int m, int n, const float* alpha,
                                  const float* a, int lda, const float* x, int incx, const float* beta, float* y,
                                  int incy) {
  namespace blas = gpulab::emulated::blas;
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!blas::valid(trans)) return blas::illegal("cublasSgemv", 1);
  if (m < 0) return blas::illegal("cublasSgemv", 2);
  if (n < 0) return blas::illegal("cublasSgemv", 3);
  if (lda < blas::at_least_one(m)) return blas::illegal("cublasSgemv", 6);
  if (incx == 0) return blas::illegal("cublasSgemv", 8);
  if (incy == 0) return blas::illegal("cublasSgemv", 11);
  if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
  const int xs = trans == CUBLAS_OP_N ? n : m, ys = trans == CUBLAS_OP_N ? m : n;
  if (!blas::in_device_memory("cublasSgemv", "A", a, blas::matrix_bytes<float>(m, n, lda)) ||
      !blas::in_device_memory("cublasSgemv", "x", x, blas::vector_bytes<float>(xs, incx)) ||
      !blas::in_device_memory("cublasSgemv", "y", y, blas::vector_bytes<float>(ys, incy)))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  cblas_sgemv(CblasColMajor, blas::transpose(trans), m, n, *alpha, a, lda, x, incx, *beta, y, incy);
  gpulab::emulated::note_host_write(y, blas::vector_bytes<float>(ys, incy));
  return CUBLAS_STATUS_SUCCESS;
}

// y = alpha x + y.
inline cublasStatus_t cublasSaxpy(cublasHandle_t handle, int n, const float* alpha, const float* x, int incx, float* y,
                                  int incy) {
  namespace blas = gpulab::emulated::blas;
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (n <= 0) return CUBLAS_STATUS_SUCCESS;
  if (!blas::in_device_memory("cublasSaxpy", "x", x, blas::vector_bytes<float>(n, incx)) ||
      !blas::in_device_memory("cublasSaxpy", "y", y, blas::vector_bytes<float>(n, incy)))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  cblas_saxpy(n, *alpha, x, incx, y, incy);
  gpulab::emulated::note_host_write(y, blas::vector_bytes<float>(n, incy));
  return CUBLAS_STATUS_SUCCESS;
}

// x = alpha x.
inline cublasStatus_t cublasSscal(cublasHandle_t handle, int n, const float* alpha, float* x, int incx) {
  namespace blas = gpulab::emulated::blas;
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (n <= 0 || incx <= 0) return CUBLAS_STATUS_SUCCESS;
  if (!blas::in_device_memory("cublasSscal", "x", x, blas::vector_bytes<float>(n, incx)))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  cblas_sscal(n, *alpha, x, incx);
  return CUBLAS_STATUS_SUCCESS;
}

// *result = x · y (result in host or device memory, by the pointer mode; both are the host's here).
inline cublasStatus_t cublasSdot(cublasHandle_t handle, int n, const float* x, int incx, const float* y, int incy,
                                 float* result) {
  namespace blas = gpulab::emulated::blas;
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (result == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  if (n > 0 && (!blas::in_device_memory("cublasSdot", "x", x, blas::vector_bytes<float>(n, incx)) ||
                !blas::in_device_memory("cublasSdot", "y", y, blas::vector_bytes<float>(n, incy))))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  *result = n > 0 ? cblas_sdot(n, x, incx, y, incy) : 0.0f;
  if (handle->pointer_mode == CUBLAS_POINTER_MODE_DEVICE) gpulab::emulated::note_host_write(result, sizeof(float));
  return CUBLAS_STATUS_SUCCESS;
}

// *result = ‖x‖₂.
inline cublasStatus_t cublasSnrm2(cublasHandle_t handle, int n, const float* x, int incx, float* result) {
  namespace blas = gpulab::emulated::blas;
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (result == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  if (n > 0 && incx > 0 && !blas::in_device_memory("cublasSnrm2", "x", x, blas::vector_bytes<float>(n, incx)))
    return CUBLAS_STATUS_EXECUTION_FAILED;
  *result = n > 0 && incx > 0 ? cblas_snrm2(n, x, incx) : 0.0f;
  if (handle->pointer_mode == CUBLAS_POINTER_MODE_DEVICE) gpulab::emulated::note_host_write(result, sizeof(float));
  return CUBLAS_STATUS_SUCCESS;
}
