// cuBLAS SGEMM behind the lesson's row-major interface.
#include "matmul/matmul_cublas.hpp"

#include <cublas_v2.h>

#include <map>
#include <stdexcept>
#include <string>

#include "common/cuda_check.hpp"
#include "common/cuda_error.hpp"

namespace gpulab::matmul {

namespace {

void check(cublasStatus_t status, const char* call, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw_library_error(static_cast<int>(status),
                      std::string(cublasGetStatusString(status)) + " (" + cublasGetStatusName(status) + ")", call,
                      __FILE__, line);
}
#define GPULAB_CUBLAS_CHECK(call) check((call), #call, __LINE__)

// One handle per thread that calls and per device (creating one costs milliseconds; the app runs
// lessons on its own thread; a handle belongs to the device current when it was created, and
// lesson 10 drives several GPUs from one thread).
cublasHandle_t handle() {
  thread_local std::map<int, cublasHandle_t> handles;
  int device = 0;
  GPULAB_CUDA_CHECK(cudaGetDevice(&device));
  cublasHandle_t& h = handles[device];
  if (h == nullptr) {
    GPULAB_CUBLAS_CHECK(cublasCreate(&h));
    // FP32 all the way: no TF32 tensor-core math, no emulation, to compare like with like.
    GPULAB_CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  }
  return h;
}

}  // namespace

void cublas_ready() { handle(); }

void cublas(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  if (m < 0 || n < 0 || k < 0) throw std::invalid_argument("matmul: m, n and k must not be negative");
  if (c.empty()) return;
  cublas_gemm(false, false, a.data(), b.data(), c.data(), m, n, k, nullptr);
}

void cublas_gemm(bool ta, bool tb, const float* a, const float* b, float* c, int m, int n, int k, void* stream) {
  if (m == 0 || n == 0) return;
  const float one = 1.0f, zero = 0.0f;
  GPULAB_CUBLAS_CHECK(cublasSetStream(handle(), static_cast<cudaStream_t>(stream)));
  // cuBLAS is column-major. A row-major matrix is its transpose in column-major, so C = A·B
  // row-major is Cᵀ = Bᵀ·Aᵀ column-major: swap the operands, no copies. A stored transposed
  // (k × m row-major) is then one cuBLAS transposes back, and the same for B.
  const int ldb = tb ? k : n, lda = ta ? m : k;
  GPULAB_CUBLAS_CHECK(cublasSgemm(handle(), tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k,
                                  &one, b, ldb > 0 ? ldb : 1, a, lda > 0 ? lda : 1, &zero, c, n));
}

void cublas_tensor(TensorInputs inputs, const void* a, const void* b, float* c, int m, int n, int k) {
  if (m < 0 || n < 0 || k < 0) throw std::invalid_argument("matmul: m, n and k must not be negative");
  if (m == 0 || n == 0) return;
  const float one = 1.0f, zero = 0.0f;
  const cudaDataType_t type = inputs == TensorInputs::fp16   ? CUDA_R_16F
                              : inputs == TensorInputs::bf16 ? CUDA_R_16BF
                                                             : CUDA_R_32F;
  // The compute type says how to multiply: TF32 tensor cores for floats, FP32 sums for 16-bit inputs.
  const cublasComputeType_t compute = inputs == TensorInputs::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  GPULAB_CUBLAS_CHECK(cublasSetStream(handle(), nullptr));
  // Row-major through column-major as in cublas_gemm: Cᵀ = Bᵀ·Aᵀ.
  GPULAB_CUBLAS_CHECK(cublasGemmEx(handle(), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, type, n, a, type,
                                   k > 0 ? k : 1, &zero, c, CUDA_R_32F, n, compute, CUBLAS_GEMM_DEFAULT));
}

}  // namespace gpulab::matmul
