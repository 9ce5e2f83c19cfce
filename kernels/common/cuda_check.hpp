#pragma once
// One way to check CUDA: every runtime call goes through GPULAB_CUDA_CHECK and every launch goes
// through GPULAB_LAUNCH (common/target.cuh), which checks it. Both throw CudaError (never exit),
// so a test or the app can catch the error and go on.
#include <cuda_runtime_api.h>

#include <string>

#include "common/cuda_error.hpp"

namespace gpulab {

// "cudaMalloc(&p, bytes) failed at kernels/common/device_buffer.hpp:31: out of memory
// (cudaErrorMemoryAllocation)"
[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

inline void cuda_check(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, call, file, line);
}

// CUDA's message with the error's name: "out of memory (cudaErrorMemoryAllocation)".
std::string cuda_message(cudaError_t code);

}  // namespace gpulab

#define GPULAB_CUDA_CHECK(call) ::gpulab::cuda_check((call), #call, __FILE__, __LINE__)
