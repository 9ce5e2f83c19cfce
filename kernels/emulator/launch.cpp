// Emulated launches: the GPU's configuration rules and error messages, then the grid, then the
// checked mode's inspection of every buffer's guard zones.
#include <mutex>
#include <string>

#include "common/launch_description.hpp"
#include "emulator/emulator.hpp"
#include "emulator/runtime.hpp"

namespace gpulab::emulated {

namespace {

// CUDA's codes and messages for the errors the emulator reproduces. A GPU with CUDA 13 (driver
// 580) refuses an oversized block with cudaErrorInvalidValue; the GPU tests check that the
// emulator refuses the same configurations with the same error.
constexpr int kInvalidValue = 1;
constexpr int kIllegalAddress = 700;
constexpr int kLaunchFailure = 719;
const char* const kInvalidValueMessage = "invalid argument (cudaErrorInvalidValue)";
const char* const kIllegalAddressMessage = "an illegal memory access was encountered (cudaErrorIllegalAddress)";

Dims dims(const dim3& d) { return {d.x, d.y, d.z}; }

[[noreturn]] void fail(const char* kernel, const LaunchConfig& c, const char* file, int line, int code,
                       const char* cuda_message, const std::string& why) {
  const std::string message = std::string(cuda_message) + (why.empty() ? "" : " — " + why);
  throw CudaError(code, cuda_message,
                  launch_failure(kernel, dims(c.grid), dims(c.block), c.shared_bytes, file, line, message));
}

void check_config(const char* kernel, const LaunchConfig& c, const char* file, int line) {
  const DeviceInfo& d = device();
  const auto bad = [&](const std::string& why) {
    fail(kernel, c, file, line, kInvalidValue, kInvalidValueMessage, why);
  };
  const unsigned b[3] = {c.block.x, c.block.y, c.block.z};
  const unsigned g[3] = {c.grid.x, c.grid.y, c.grid.z};
  for (int i = 0; i < 3; ++i) {
    if (b[i] == 0 || g[i] == 0) bad("a grid or block dimension is 0");
    if (b[i] > static_cast<unsigned>(d.max_block_dim[i])) {
      bad("block dimension " + std::to_string(i) + " is over " + std::to_string(d.max_block_dim[i]));
    }
    if (g[i] > static_cast<unsigned>(d.max_grid_dim[i])) {
      bad("grid dimension " + std::to_string(i) + " is over " + std::to_string(d.max_grid_dim[i]));
    }
  }
  if (std::size_t{b[0]} * b[1] * b[2] > static_cast<std::size_t>(d.max_threads_per_block)) {
    bad("more than " + std::to_string(d.max_threads_per_block) + " threads per block");
  }
  if (c.shared_bytes > d.shared_memory_per_block) {
    bad("more than " + std::to_string(d.shared_memory_per_block) + " bytes of dynamic shared memory per block");
  }
}

}  // namespace

const DeviceInfo& device() {
  static const DeviceInfo info = [] {
    DeviceInfo d;
    d.available = true;
    d.name = "CPU emulation (" + std::to_string(worker_count()) + " worker threads)";
    d.multiprocessors = static_cast<int>(worker_count());  // one "multiprocessor" per worker
    d.max_threads_per_block = 1024;
    d.max_block_dim[0] = d.max_block_dim[1] = 1024;
    d.max_block_dim[2] = 64;
    d.max_grid_dim[0] = 2147483647;
    d.max_grid_dim[1] = d.max_grid_dim[2] = 65535;
    d.max_threads_per_multiprocessor = 2048;
    d.shared_memory_per_block = 48 * 1024;
    d.warp_size = 32;
    return d;
  }();
  return info;
}

void run_grid(const char* kernel, const char* file, int line, const LaunchConfig& config,
              const std::function<void()>& body) {
  check_config(kernel, config, file, line);
  static std::mutex one_launch_at_a_time;
  std::lock_guard lock(one_launch_at_a_time);
  try {
    run_blocks(config, body);
  } catch (const std::exception& e) {
    fail(kernel, config, file, line, kLaunchFailure, "unspecified launch failure (cudaErrorLaunchFailure)", e.what());
  }
  if (const std::string corrupted = check_guard_zones(); !corrupted.empty()) {
    fail(kernel, config, file, line, kIllegalAddress, kIllegalAddressMessage, corrupted);
  }
}

}  // namespace gpulab::emulated
