#pragma once
// How a launch is named in error messages, the same on the GPU and in the emulator:
// "add_blocks<<<(4, 1, 1), (256, 1, 1)>>>".
#include <cstddef>
#include <string>

namespace gpulab {

struct Dims {
  unsigned int x = 1, y = 1, z = 1;
};

std::string describe_launch(const char* kernel, Dims grid, Dims block, std::size_t shared_bytes);

// "launch of add_blocks<<<...>>> failed at kernels/vector_add/vector_add.cu:108: <message>"
std::string launch_failure(const char* kernel, Dims grid, Dims block, std::size_t shared_bytes, const char* file,
                           int line, const std::string& message);

// Blocks needed to give each of `count` items one thread, `per_block` threads per block. Saturates
// instead of wrapping, so an impossible grid is refused by CUDA rather than silently shrunk.
inline unsigned int blocks_for(std::size_t count, unsigned int per_block) {
  const std::size_t blocks = (count + per_block - 1) / per_block;
  return blocks > 0xFFFFFFFFu ? 0xFFFFFFFFu : static_cast<unsigned int>(blocks);
}

}  // namespace gpulab
