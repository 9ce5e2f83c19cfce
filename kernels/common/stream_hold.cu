// The default stream held by a spinning kernel until the host lets go (stream_hold.hpp).
#include <cuda_runtime.h>

#include "common/cuda_check.hpp"
#include "common/launch.cuh"
#include "common/stream_hold.hpp"

namespace gpulab::gpu {

namespace {

__device__ std::uint64_t nanoseconds() {
  std::uint64_t now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

// One thread reads the host's flag over PCIe until it changes (volatile: a fresh read each time).
__global__ void hold_kernel(volatile int* flags, std::uint64_t timeout_ns) {
  const std::uint64_t start = nanoseconds();
  while (flags[0] == 0) {
    if (nanoseconds() - start > timeout_ns) {
      flags[1] = 1;
      return;
    }
    __nanosleep(200);
  }
}

}  // namespace

StreamHold::StreamHold() {
  GPULAB_CUDA_CHECK(cudaHostAlloc(&flags_, 2 * sizeof(int), cudaHostAllocMapped));
  flags_[0] = 1;
  flags_[1] = 0;
  GPULAB_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flags_), flags_, 0));
}

StreamHold::~StreamHold() { cudaFreeHost(flags_); }

void StreamHold::hold(std::uint32_t timeout_us) {
  // The previous hold has passed (the caller waited for the stream), so nothing reads these now.
  const auto flags = static_cast<volatile int*>(flags_);
  flags[0] = 0;
  flags[1] = 0;
  hold_kernel<<<1, 1>>>(device_flags_, std::uint64_t{timeout_us} * 1000);
  check_launch("hold_kernel", 1, 1);
}

void StreamHold::release() { static_cast<volatile int*>(flags_)[0] = 1; }

bool StreamHold::timed_out() const { return static_cast<volatile int*>(flags_)[1] != 0; }

}  // namespace gpulab::gpu
