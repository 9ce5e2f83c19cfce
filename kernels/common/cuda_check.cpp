#include "common/cuda_check.hpp"

namespace gpulab {

std::string cuda_message(cudaError_t code) {
  return std::string(cudaGetErrorString(code)) + " (" + cudaGetErrorName(code) + ")";
}

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  throw_library_error(code, cuda_message(code), call, file, line);
}

}  // namespace gpulab
