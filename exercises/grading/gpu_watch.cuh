#pragma once
// For the GPU build of a graded file only: the grader forces this header in (nvcc's -include), so
// that the learner's copies and host-memory calls pass through the grader's watch
// (kernels/emulator/observers/upload_watch.hpp) on the way to CUDA, unchanged. On the emulator the runtime
// itself tells the watch; on a GPU nothing else could say that an output was computed on the host
// and handed over. Each name stays CUDA's in the learner's code (macros at the end), with CUDA's
// overloads, defaults and results.
#include <cuda_runtime.h>

#include <cstddef>

namespace gpulab::emulated::rt::uploads {
void copied(void* dst, const void* src, std::size_t bytes, bool dst_device, bool src_device);
void host_visible(const void* p, std::size_t bytes);
void releasing(const void* p);
}  // namespace gpulab::emulated::rt::uploads

namespace gpulab_watch {

namespace up = gpulab::emulated::rt::uploads;

inline bool on_device(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();  // an unregistered host pointer: not the learner's error to see
    return false;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

inline void note(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  const bool to =
      kind == cudaMemcpyDefault ? on_device(dst) : kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool from =
      kind == cudaMemcpyDefault ? on_device(src) : kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  up::copied(dst, src, bytes, to, from);
}

inline cudaError_t memcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  const cudaError_t e = ::cudaMemcpy(dst, src, bytes, kind);
  if (e == cudaSuccess) note(dst, src, bytes, kind);
  return e;
}
inline cudaError_t memcpy_async(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                                cudaStream_t stream = 0) {
  const cudaError_t e = ::cudaMemcpyAsync(dst, src, bytes, kind, stream);
  if (e == cudaSuccess) note(dst, src, bytes, kind);
  return e;
}
inline void note_rows(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                      std::size_t height, cudaMemcpyKind kind) {
  for (std::size_t row = 0; row < height; ++row)
    note(static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch, width, kind);
}
inline cudaError_t memcpy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                             std::size_t height, cudaMemcpyKind kind) {
  const cudaError_t e = ::cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
  if (e == cudaSuccess) note_rows(dst, dpitch, src, spitch, width, height, kind);
  return e;
}
inline cudaError_t memcpy_2d_async(void* dst, std::size_t dpitch, const void* src, std::size_t spitch,
                                   std::size_t width, std::size_t height, cudaMemcpyKind kind,
                                   cudaStream_t stream = 0) {
  const cudaError_t e = ::cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, stream);
  if (e == cudaSuccess) note_rows(dst, dpitch, src, spitch, width, height, kind);
  return e;
}
inline cudaError_t memcpy_to_symbol(const void* symbol, const void* src, std::size_t bytes, std::size_t offset = 0,
                                    cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  const cudaError_t e = ::cudaMemcpyToSymbol(symbol, src, bytes, offset, kind);
  if (e == cudaSuccess && kind != cudaMemcpyDeviceToDevice) up::copied(nullptr, src, bytes, true, false);
  return e;
}
template <typename T>
cudaError_t memcpy_to_symbol(const T& symbol, const void* src, std::size_t bytes, std::size_t offset = 0,
                             cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return memcpy_to_symbol(static_cast<const void*>(&symbol), src, bytes, offset, kind);
}
inline cudaError_t memcpy_to_symbol_async(const void* symbol, const void* src, std::size_t bytes, std::size_t offset,
                                          cudaMemcpyKind kind, cudaStream_t stream = 0) {
  const cudaError_t e = ::cudaMemcpyToSymbolAsync(symbol, src, bytes, offset, kind, stream);
  if (e == cudaSuccess && kind != cudaMemcpyDeviceToDevice) up::copied(nullptr, src, bytes, true, false);
  return e;
}
template <typename T>
cudaError_t memcpy_to_symbol_async(const T& symbol, const void* src, std::size_t bytes, std::size_t offset = 0,
                                   cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = 0) {
  return memcpy_to_symbol_async(static_cast<const void*>(&symbol), src, bytes, offset, kind, stream);
}

// Host memory a kernel can read directly: its contents count as handed over.
inline cudaError_t host_alloc(void** p, std::size_t bytes, unsigned int flags) {
  const cudaError_t e = ::cudaHostAlloc(p, bytes, flags);
  if (e == cudaSuccess) up::host_visible(*p, bytes);
  return e;
}
template <typename T>
cudaError_t host_alloc(T** p, std::size_t bytes, unsigned int flags) {
  return host_alloc(reinterpret_cast<void**>(p), bytes, flags);
}
inline cudaError_t malloc_host(void** p, std::size_t bytes) { return host_alloc(p, bytes, cudaHostAllocDefault); }
template <typename T>
cudaError_t malloc_host(T** p, std::size_t bytes, unsigned int flags = cudaHostAllocDefault) {
  return host_alloc(reinterpret_cast<void**>(p), bytes, flags);
}
template <typename T>
cudaError_t malloc_managed(T** p, std::size_t bytes, unsigned int flags = cudaMemAttachGlobal) {
  const cudaError_t e = ::cudaMallocManaged(reinterpret_cast<void**>(p), bytes, flags);
  if (e == cudaSuccess) up::host_visible(*p, bytes);
  return e;
}
// Before memory a kernel could read goes, its contents are kept (after the device's work on it).
inline cudaError_t free_host(void* p) {
  (void)cudaDeviceSynchronize();
  up::releasing(p);
  return ::cudaFreeHost(p);
}
inline cudaError_t free_device(void* p) {
  (void)cudaDeviceSynchronize();  // cudaFree waits for the device too
  up::releasing(p);
  return ::cudaFree(p);
}

}  // namespace gpulab_watch

#define cudaMemcpy gpulab_watch::memcpy
#define cudaMemcpyAsync gpulab_watch::memcpy_async
#define cudaMemcpy2D gpulab_watch::memcpy_2d
#define cudaMemcpy2DAsync gpulab_watch::memcpy_2d_async
#define cudaMemcpyToSymbol gpulab_watch::memcpy_to_symbol
#define cudaMemcpyToSymbolAsync gpulab_watch::memcpy_to_symbol_async
#define cudaHostAlloc gpulab_watch::host_alloc
#define cudaMallocHost gpulab_watch::malloc_host
#define cudaMallocManaged gpulab_watch::malloc_managed
#define cudaFreeHost gpulab_watch::free_host
#define cudaFree gpulab_watch::free_device
