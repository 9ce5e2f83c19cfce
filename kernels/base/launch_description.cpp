#include "base/launch_description.hpp"

namespace gpulab {

namespace {
std::string text(Dims d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}
}  // namespace

std::string describe_launch(const char* kernel, Dims grid, Dims block, std::size_t shared_bytes) {
  std::string out = std::string(kernel) + "<<<" + text(grid) + ", " + text(block);
  if (shared_bytes > 0) out += ", " + std::to_string(shared_bytes) + " B shared";
  return out + ">>>";
}

std::string launch_failure(const char* kernel, Dims grid, Dims block, std::size_t shared_bytes, const char* file,
                           int line, const std::string& message) {
  return "launch of " + describe_launch(kernel, grid, block, shared_bytes) + " failed at " + file + ":" +
         std::to_string(line) + ": " + message;
}

}  // namespace gpulab
