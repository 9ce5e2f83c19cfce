// Lesson 10: the GPUs this process sees. Data parallelism is in data_parallel.cpp, model
// parallelism in model_parallel.cpp, what they share in multi_gpu_devices.hpp.
#include "multi_gpu/multi_gpu.hpp"

#include <cuda_runtime.h>

namespace gpulab::gpu::multi_gpu {

int visible_gpus() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

}  // namespace gpulab::gpu::multi_gpu
