#include "common/cuda_check.hpp"

namespace gpulab {

std::string cuda_message(cudaError_t code) {
  return std::string(cudaGetErrorString(code)) + " (" + cudaGetErrorName(code) + ")";
}

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  throw CudaError(code, cuda_message(code),
                  std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " + cuda_message(code));
}

}  // namespace gpulab
