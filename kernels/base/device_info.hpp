#pragma once
// What the learner's GPU is and what it allows. A machine with no GPU or no driver is a normal
// answer (available == false, with the reason), not an error: CPU work goes on.
#include <cstddef>
#include <string>

namespace gpulab {

struct DeviceInfo {
  bool available = false;
  std::string reason;  // why not available: "no CUDA device: ..."
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int multiprocessors = 0;
  std::size_t total_memory = 0;  // bytes
  int max_threads_per_block = 0;
  int max_block_dim[3] = {0, 0, 0};
  int max_grid_dim[3] = {0, 0, 0};
  int max_threads_per_multiprocessor = 0;
  std::size_t shared_memory_per_block = 0;  // bytes, without opting in to more
  int warp_size = 0;
  int l2_cache_bytes = 0;
  int driver_version = 0;  // CUDA's encoding: 13000 is 13.0
  int runtime_version = 0;

  std::string compute_capability() const;
  std::string driver_string() const;  // "13.0"
  std::string runtime_string() const;
};

// Queries the current device once per process (cached); never throws.
const DeviceInfo& device_info();

// Free memory on the current device right now, in bytes (0 when there is no device).
std::size_t device_free_memory();

// The same query without the cache (the tests use it).
DeviceInfo query_device(int index = 0);

// After a failed GPU run: whether the CUDA context still works. Some errors (an illegal address,
// say) are sticky and leave the context unusable for the rest of the process; then the device is
// reset once and checked again. `message` is empty when nothing was wrong.
struct DeviceRecovery {
  bool usable = true;
  std::string message;
};
DeviceRecovery recover_device();

// "13.0" from CUDA's version encoding (1000 * major + 10 * minor).
std::string cuda_version_string(int version);

}  // namespace gpulab
