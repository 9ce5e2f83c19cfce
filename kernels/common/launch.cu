#include "common/launch.cuh"

namespace gpulab {

namespace {
std::string dims(const dim3& d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}
}  // namespace

std::string describe_launch(const char* kernel, const LaunchConfig& config) {
  std::string text = std::string(kernel) + "<<<" + dims(config.grid) + ", " + dims(config.block);
  if (config.shared_bytes > 0) text += ", " + std::to_string(config.shared_bytes) + " B shared";
  return text + ">>>";
}

void check_launch_config(const char* kernel, const LaunchConfig& config, const char* file, int line) {
  const cudaError_t code = cudaGetLastError();  // also clears it
  if (code != cudaSuccess) {
    throw CudaError(code, "launch of " + describe_launch(kernel, config) + " failed at " + file + ":" +
                              std::to_string(line) + ": " + cuda_message(code));
  }
}

}  // namespace gpulab
