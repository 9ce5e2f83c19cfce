// The CUDA runtime's memory on the emulator (runtime_api.hpp): allocations, copies and fills,
// each checked as compute-sanitizer checks the call (a range past an allocation, a pointer of the
// wrong side), and what it touches told to the checked mode and the stream-order check.
#include "emulator/runtime/runtime_api.hpp"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <thread>

#include "emulator/execution/scheduler.hpp"
#include "emulator/observers/checker.hpp"
#include "emulator/observers/stream_order.hpp"
#include "emulator/runtime/device.hpp"
#include "emulator/runtime/errors.hpp"
#include "emulator/runtime/memory.hpp"
#include "emulator/runtime/runtime_internal.hpp"

namespace gpulab::emulated {

using namespace runtime_internal;

namespace {

// Pinned host allocations, so cudaFreeHost can tell its own pointers.
std::mutex host_mutex;
std::set<void*> host_allocations;

// The variable's name in cudaMalloc(&d_a, ...) or cudaMalloc((void**)&d_a, ...).
std::string pointer_name(const char* expression) {
  std::string s = expression;
  std::size_t end = s.size();
  while (end > 0 && !(std::isalnum(static_cast<unsigned char>(s[end - 1])) || s[end - 1] == '_' || s[end - 1] == ']')) {
    --end;
  }
  std::size_t begin = s.rfind('&', end);
  begin = begin == std::string::npos ? 0 : begin + 1;
  while (begin < end && (s[begin] == ' ' || s[begin] == '(')) ++begin;
  return s.substr(begin, end - begin);
}

// Checks a device-side range of a copy: [p, p + bytes) inside one live buffer.
cudaError_t check_device_range(const void* p, std::size_t bytes, const char* call, const char* role) {
  if (bytes == 0) return cudaSuccess;
  const BufferLookup b = find_buffer(p);
  if (!b.found) {
    return fail(cudaErrorInvalidValue, std::string(call) + ": the " + role +
                                           " is not device memory from cudaMalloc (is it a host pointer, or "
                                           "already freed? is the copy's direction the right way round?)");
  }
  if (b.offset + bytes > b.size) {
    return fail(cudaErrorInvalidValue, std::string(call) + ": " + std::to_string(bytes) + " bytes from offset " +
                                           std::to_string(b.offset) + " run past the end of '" + b.name + "' (" +
                                           std::to_string(b.size) + " bytes)");
  }
  return cudaSuccess;
}

// A copy with the program's host memory on one side, which the program may have got wrong (an
// array shorter than the copy, running into an unmapped page). The kernel makes it, so a bad
// address is an error (EFAULT), not a crash: false then. Where the call is not allowed (a
// sandbox), an ordinary copy.
bool copy_from_host_side(void* dst, const void* src, std::size_t bytes) {
  const iovec to{dst, bytes};
  const iovec from{const_cast<void*>(src), bytes};
  const ssize_t done = process_vm_readv(getpid(), &to, 1, &from, 1, 0);
  if (done == static_cast<ssize_t>(bytes)) return true;
  if (done < 0 && errno != EFAULT) {
    std::memmove(dst, src, bytes);
    return true;
  }
  return false;
}

cudaError_t copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, const char* call) {
  if (bytes == 0) return cudaSuccess;
  const DeviceMemoryOpen open;  // under the grader's host guard (memory.hpp)
  if (dst == nullptr || src == nullptr) return fail(cudaErrorInvalidValue, std::string(call) + ": a null pointer");
  const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (kind > cudaMemcpyDefault) return fail(cudaErrorInvalidMemcpyDirection, call);
  if (dst_device) {
    if (const cudaError_t e = check_device_range(dst, bytes, call, "destination"); e != cudaSuccess) return e;
  }
  if (src_device) {
    if (const cudaError_t e = check_device_range(src, bytes, call, "source"); e != cudaSuccess) return e;
  }
  // cudaMemcpyDefault: the pointers say which side each lies on, as with unified addressing.
  const bool to_device = kind == cudaMemcpyDefault ? find_buffer(dst).found : dst_device;
  const bool from_device = kind == cudaMemcpyDefault ? find_buffer(src).found : src_device;
  if (dst_device && src_device) {
    std::memmove(dst, src, bytes);
  } else if (!copy_from_host_side(dst, src, bytes)) {
    return fail(cudaErrorInvalidValue, std::string(call) + ": the host " + (dst_device ? "source" : "destination") +
                                           " is not " + std::to_string(bytes) +
                                           " bytes of the program's memory (an array shorter than the copy?)");
  }
  uploads::copied(dst, src, bytes, to_device, from_device);
  note_host_write(dst, bytes);  // initialised, for initcheck (a no-op for host memory)
  if (to_device) stream_order::touched(reinterpret_cast<std::uintptr_t>(dst), bytes, true);
  if (from_device) stream_order::touched(reinterpret_cast<std::uintptr_t>(src), bytes, false);
  return cudaSuccess;
}

}  // namespace

namespace rt {

cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) {
  const std::size_t total = std::size_t{16} << 30, used = live_device_bytes();
  *total_bytes = total;
  *free_bytes = used < total ? total - used : 0;
  return cudaSuccess;
}

cudaError_t malloc_named(void** ptr, std::size_t bytes, const char* name, const char* file, int line,
                         std::size_t element_bytes) {
  if (ptr == nullptr) return fail(cudaErrorInvalidValue, "cudaMalloc: a null pointer to store the address in");
  try {
    std::string label = pointer_name(name);
    if (label.empty()) label = std::string("allocation at ") + file + ":" + std::to_string(line);
    *ptr = allocate_device(bytes, label, element_bytes, std::string(file) + ":" + std::to_string(line));
    return cudaSuccess;
  } catch (const std::bad_alloc&) {
    *ptr = nullptr;
    return fail(cudaErrorMemoryAllocation,
                "cudaMalloc of " + std::to_string(bytes) + " bytes at " + file + ":" + std::to_string(line));
  }
}
cudaError_t cudaFree(void* ptr) {
  waited_for_all();  // cudaFree waits for the device, as on a GPU
  if (ptr == nullptr) return cudaSuccess;
  if (!is_buffer_start(ptr)) {
    return fail(cudaErrorInvalidValue,
                "cudaFree: not the start of a live cudaMalloc buffer (freed twice, or a host pointer?)");
  }
  uploads::releasing(ptr);
  GuardedMemory::free(ptr);
  return cudaSuccess;
}
cudaError_t cudaMallocHost(void** ptr, std::size_t bytes) { return cudaHostAlloc(ptr, bytes, cudaHostAllocDefault); }
cudaError_t cudaHostAlloc(void** ptr, std::size_t bytes, unsigned int) {
  *ptr = std::aligned_alloc(256, std::max<std::size_t>(256, (bytes + 255) / 256 * 256));
  if (*ptr == nullptr) return fail(cudaErrorMemoryAllocation, "cudaMallocHost of " + std::to_string(bytes) + " bytes");
  uploads::host_visible(*ptr, bytes);
  std::lock_guard lock(host_mutex);
  host_allocations.insert(*ptr);
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void* ptr) {
  if (ptr == nullptr) return cudaSuccess;
  uploads::releasing(ptr);
  {
    std::lock_guard lock(host_mutex);
    if (host_allocations.erase(ptr) == 0) {
      return fail(cudaErrorInvalidValue, "cudaFreeHost: not a pointer from cudaMallocHost or cudaHostAlloc");
    }
  }
  std::free(ptr);
  return cudaSuccess;
}
cudaError_t cudaMallocPitch(void** ptr, std::size_t* pitch, std::size_t width, std::size_t height) {
  *pitch = (width + 511) / 512 * 512;
  return malloc_named(ptr, *pitch * height, "pitched allocation", "cudaMallocPitch", 0, 1);
}
cudaError_t cudaMallocAsync(void** ptr, std::size_t bytes, cudaStream_t) {
  return malloc_named(ptr, bytes, "stream-ordered allocation", "cudaMallocAsync", 0, 1);
}
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t) { return cudaFree(ptr); }

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  waited_for_all();  // on the legacy default stream: after the blocking streams' work
  if (const cudaError_t fault = pending_fault(); fault != cudaSuccess) return fault;  // it synchronises
  cudaError_t e = cudaSuccess;
  {
    const stream_order::Operation op(nullptr, "cudaMemcpy");
    e = copy(dst, src, bytes, kind, "cudaMemcpy");
  }
  stream_order::host_waited(nullptr);
  return e;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
  if (kind == cudaMemcpyDeviceToHost && bytes > 0) queued_to_host(stream);
  const stream_order::Operation op(stream, "cudaMemcpyAsync");
  return copy(dst, src, bytes, kind, "cudaMemcpyAsync");
}
namespace {
// cudaMemcpy2D and its Async form: `height` rows of `width` bytes, as one operation of `stream`.
cudaError_t copy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                    std::size_t height, cudaMemcpyKind kind, cudaStream_t stream, const char* call) {
  if (width > dpitch || width > spitch)
    return fail(cudaErrorInvalidValue, std::string(call) + ": width is over a pitch");
  const stream_order::Operation op(stream, call);
  for (std::size_t row = 0; row < height; ++row) {
    const cudaError_t e =
        copy(static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch, width, kind, call);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
}  // namespace
cudaError_t cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                         std::size_t height, cudaMemcpyKind kind) {
  return copy_2d(dst, dpitch, src, spitch, width, height, kind, nullptr, "cudaMemcpy2D");
}
cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                              std::size_t height, cudaMemcpyKind kind, cudaStream_t stream) {
  if (kind == cudaMemcpyDeviceToHost && width * height > 0) queued_to_host(stream);
  return copy_2d(dst, dpitch, src, spitch, width, height, kind, stream, "cudaMemcpy2DAsync");
}
namespace {
cudaError_t fill(void* dst, int value, std::size_t bytes, const char* call) {
  if (const cudaError_t e = check_device_range(dst, bytes, call, "destination"); e != cudaSuccess) return e;
  const DeviceMemoryOpen open;
  if (bytes > 0) std::memset(dst, value, bytes);
  note_host_write(dst, bytes);
  stream_order::touched(reinterpret_cast<std::uintptr_t>(dst), bytes, true);
  return cudaSuccess;
}
}  // namespace
cudaError_t cudaMemset(void* dst, int value, std::size_t bytes) {
  const stream_order::Operation op(nullptr, "cudaMemset");
  return fill(dst, value, bytes, "cudaMemset");
}
cudaError_t cudaMemsetAsync(void* dst, int value, std::size_t bytes, cudaStream_t stream) {
  const stream_order::Operation op(stream, "cudaMemsetAsync");
  return fill(dst, value, bytes, "cudaMemsetAsync");
}
cudaError_t cudaMemset2D(void* dst, std::size_t pitch, int value, std::size_t width, std::size_t height) {
  for (std::size_t row = 0; row < height; ++row) {
    if (const cudaError_t e = cudaMemset(static_cast<char*>(dst) + row * pitch, value, width); e != cudaSuccess) {
      return e;
    }
  }
  return cudaSuccess;
}
cudaError_t symbol_copy(void* dst, const void* src, std::size_t bytes, std::size_t offset, std::size_t symbol_bytes,
                        bool to_symbol) {
  if (offset + bytes > symbol_bytes) {
    return fail(cudaErrorInvalidValue, std::string(to_symbol ? "cudaMemcpyToSymbol" : "cudaMemcpyFromSymbol") + ": " +
                                           std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
                                           " do not fit the symbol's " + std::to_string(symbol_bytes) + " bytes");
  }
  if (bytes == 0) return cudaSuccess;
  const DeviceMemoryOpen open;
  const bool copied = to_symbol ? copy_from_host_side(static_cast<char*>(dst) + offset, src, bytes)
                                : copy_from_host_side(dst, static_cast<const char*>(src) + offset, bytes);
  if (!copied) {
    return fail(cudaErrorInvalidValue, std::string(to_symbol ? "cudaMemcpyToSymbol" : "cudaMemcpyFromSymbol") +
                                           ": the host " + (to_symbol ? "source" : "destination") + " is not " +
                                           std::to_string(bytes) + " bytes of the program's memory");
  }
  if (to_symbol) uploads::copied(static_cast<char*>(dst) + offset, src, bytes, true, false);
  return cudaSuccess;
}

}  // namespace rt

}  // namespace gpulab::emulated
