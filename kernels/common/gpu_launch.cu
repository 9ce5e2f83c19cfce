#include <cuda_runtime_api.h>

#include "common/cuda_check.hpp"
#include "common/gpu_target.cuh"
#include "common/launch_description.hpp"

namespace gpulab::gpu {

void check_launch(const char* kernel, const LaunchConfig& config, const char* file, int line) {
  const cudaError_t code = cudaGetLastError();  // also clears it
  if (code != cudaSuccess) {
    const Dims grid{config.grid.x, config.grid.y, config.grid.z};
    const Dims block{config.block.x, config.block.y, config.block.z};
    throw CudaError(code, cuda_message(code),
                    launch_failure(kernel, grid, block, config.shared_bytes, file, line, cuda_message(code)));
  }
}

}  // namespace gpulab::gpu
