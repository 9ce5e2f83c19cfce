#pragma once
// cuBLAS SGEMM, the GPU library baseline (GPU builds only). Same arguments as the launchers in
// matmul.hpp: device memory, row-major.
#include <span>

namespace gpulab::gpu::matmul {

// FP32 math only: tensor-core (TF32) math is switched off, so the comparison is FP32 against FP32.
void cublas(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k);

}  // namespace gpulab::gpu::matmul
