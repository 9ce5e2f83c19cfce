#pragma once
// The one place where GPU Lab writes <<<grid, block>>>: every kernel is launched through
// GPULAB_LAUNCH, which checks that CUDA accepted the launch and names the kernel, its
// configuration, the file and the line when it did not.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "common/cuda_check.hpp"

namespace gpulab {

struct LaunchConfig {
  dim3 grid;
  dim3 block;
  std::size_t shared_bytes = 0;
  cudaStream_t stream = nullptr;
};

std::string describe_launch(const char* kernel, const LaunchConfig& config);

// Throws CudaError when the launch was refused (too many threads per block, a grid too large,
// too much shared memory, ...).
void check_launch_config(const char* kernel, const LaunchConfig& config, const char* file, int line);

// [snippet:launch]
template <typename... Params, typename... Args>
void launch(const char* kernel_name, const char* file, int line, const LaunchConfig& config, void (*kernel)(Params...),
            Args&&... args) {
  kernel<<<config.grid, config.block, config.shared_bytes, config.stream>>>(std::forward<Args>(args)...);
  check_launch_config(kernel_name, config, file, line);
}
// [/snippet]

// Blocks needed to give each of `count` items one thread, `per_block` threads per block. Saturates
// instead of wrapping, so an impossible grid is refused by CUDA rather than silently shrunk.
inline unsigned int blocks_for(std::size_t count, unsigned int per_block) {
  const std::size_t blocks = (count + per_block - 1) / per_block;
  return blocks > 0xFFFFFFFFu ? 0xFFFFFFFFu : static_cast<unsigned int>(blocks);
}

}  // namespace gpulab

#define GPULAB_LAUNCH(kernel, config, ...) ::gpulab::launch(#kernel, __FILE__, __LINE__, (config), kernel, __VA_ARGS__)
