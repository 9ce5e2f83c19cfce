#pragma once
// cuDNN's handle and its calls' check, for the GPU-only files that call cuDNN (lesson 06's
// convolution, lesson 16's library step): one handle per thread, made on first use.
#include <cudnn.h>

#include "common/cuda_error.hpp"

namespace gpulab {

inline void check_cudnn(cudnnStatus_t status, const char* call, const char* file, int line) {
  if (status == CUDNN_STATUS_SUCCESS) return;
  throw_library_error(static_cast<int>(status), cudnnGetErrorString(status), call, file, line);
}
#define GPULAB_CUDNN_CHECK(call) ::gpulab::check_cudnn((call), #call, __FILE__, __LINE__)

inline cudnnHandle_t cudnn_handle() {
  thread_local cudnnHandle_t handle = [] {
    cudnnHandle_t created = nullptr;
    GPULAB_CUDNN_CHECK(cudnnCreate(&created));
    return created;
  }();
  return handle;
}

}  // namespace gpulab
