#include "common/device_memory.hpp"

#include <mutex>
#include <unordered_set>

#include "common/backend.hpp"
#include "emulator/runtime/device.hpp"
#include "emulator/runtime/memory.hpp"
#if GPULAB_HAVE_CUDA
#include "common/gpu_memory.hpp"
#endif

namespace gpulab {

#if GPULAB_HAVE_CUDA
namespace {

// The pinned host buffers still held, so each is given back to the allocator that made it.
std::mutex pinned_mutex;
std::unordered_set<void*> pinned;

}  // namespace
#endif

void* ActiveDeviceMemory::allocate(std::size_t bytes, const char* name, std::size_t element_bytes) {
#if GPULAB_HAVE_CUDA
  if (active_device() == Backend::gpu) return gpu::DeviceMemory::allocate(bytes, name, element_bytes);
#endif
  return emulated::GuardedMemory::allocate(bytes, name, element_bytes);
}

// A buffer lying in the emulator's arena was made there; any other, on the GPU.
void ActiveDeviceMemory::free(void* p) noexcept {
#if GPULAB_HAVE_CUDA
  if (!emulated::in_arena(p)) return gpu::DeviceMemory::free(p);
#endif
  emulated::GuardedMemory::free(p);
}

void ActiveDeviceMemory::upload(void* device, const void* host, std::size_t bytes) {
#if GPULAB_HAVE_CUDA
  if (!emulated::in_arena(device)) return gpu::DeviceMemory::upload(device, host, bytes);
#endif
  emulated::GuardedMemory::upload(device, host, bytes);
}

void ActiveDeviceMemory::download(void* host, const void* device, std::size_t bytes) {
#if GPULAB_HAVE_CUDA
  if (!emulated::in_arena(device)) return gpu::DeviceMemory::download(host, device, bytes);
#endif
  emulated::GuardedMemory::download(host, device, bytes);
}

void ActiveDeviceMemory::fill(void* device, unsigned char value, std::size_t bytes) {
#if GPULAB_HAVE_CUDA
  if (!emulated::in_arena(device)) return gpu::DeviceMemory::fill(device, value, bytes);
#endif
  emulated::GuardedMemory::fill(device, value, bytes);
}

void* ActiveHostMemory::allocate(std::size_t bytes, const char* name, std::size_t element_bytes) {
#if GPULAB_HAVE_CUDA
  if (active_device() == Backend::gpu) {
    void* p = gpu::PinnedMemory::allocate(bytes, name, element_bytes);
    std::lock_guard lock(pinned_mutex);
    pinned.insert(p);
    return p;
  }
#endif
  return emulated::HostMemory::allocate(bytes, name, element_bytes);
}

void ActiveHostMemory::free(void* p) noexcept {
#if GPULAB_HAVE_CUDA
  {
    std::lock_guard lock(pinned_mutex);
    if (pinned.erase(p) > 0) return gpu::PinnedMemory::free(p);
  }
#endif
  emulated::HostMemory::free(p);
}

const DeviceInfo& active_device_info() {
  if (active_device() == Backend::gpu) return device_info();
  return emulated::device();
}

}  // namespace gpulab
