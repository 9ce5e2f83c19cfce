#pragma once
// One way to check CUDA, on the GPU and in the emulator alike: every runtime call goes through
// GPULAB_CUDA_CHECK and every launch is followed by check_launch() (common/launch.cuh). Both
// throw CudaError (never exit), so a test or the app can catch the error and go on.
//
// <cuda_runtime_api.h> is the toolkit's in a GPU build and the emulator's in an emulated one;
// their cudaError_t are different types, so each build has its own overloads below.
#include <cuda_runtime_api.h>

#include <string>

#include "common/cuda_error.hpp"

namespace gpulab {

// CUDA's message with the error's name: "out of memory (cudaErrorMemoryAllocation)".
inline std::string cuda_message(cudaError_t code) {
  return std::string(cudaGetErrorString(code)) + " (" + cudaGetErrorName(code) + ")";
}

// "cudaMalloc(&p, bytes) failed at kernels/base/device_buffer.hpp:31: out of memory
// (cudaErrorMemoryAllocation)"
inline void cuda_check(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) throw_library_error(static_cast<int>(code), cuda_message(code), call, file, line);
}

}  // namespace gpulab

#define GPULAB_CUDA_CHECK(call) ::gpulab::cuda_check((call), #call, __FILE__, __LINE__)
