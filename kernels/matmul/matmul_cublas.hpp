#pragma once
// cuBLAS SGEMM, the GPU library baseline (GPU builds only). Same arguments as the launchers in
// matmul.hpp: device memory, row-major.
#include <span>

namespace gpulab::matmul {

// FP32 math only: tensor-core (TF32) math is switched off, so the comparison is FP32 against FP32.
void cublas(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k);

// Creates this thread's cuBLAS handle for the current device now. Creating one allocates memory,
// which a CUDA graph capture forbids: a capture that calls cuBLAS first makes sure of it.
void cublas_ready();

// C (m × n) = op(A) · op(B), row-major, op(A) m × k and op(B) k × n: ta says A is stored k × m
// (transposed), tb that B is stored n × k. On `stream` (a cudaStream_t; null: the default
// stream), so a CUDA graph can capture it.
void cublas_gemm(bool ta, bool tb, const float* a, const float* b, float* c, int m, int n, int k, void* stream);

// C = A · B on the tensor cores, FP32 accumulation, C in FP32: A and B hold FP16 or BF16 values
// (16-bit patterns), or floats the tensor cores read as TF32 (lesson 09).
enum class TensorInputs { tf32, fp16, bf16 };
void cublas_tensor(TensorInputs inputs, const void* a, const void* b, float* c, int m, int n, int k);

}  // namespace gpulab::matmul
