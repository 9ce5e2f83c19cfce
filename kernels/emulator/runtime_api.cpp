// The CUDA runtime API on the emulator (see runtime_api.hpp).
#include "emulator/runtime_api.hpp"

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

#include "emulator/checker.hpp"
#include "emulator/device.hpp"
#include "emulator/errors.hpp"
#include "emulator/memory.hpp"
#include "emulator/runtime.hpp"
#include "emulator/stream_order.hpp"

// The emulator's stream and event objects.
namespace gpulab::emulated::types {
struct CUstream_st {
  unsigned int flags = 0;
};
struct CUevent_st {
  bool recorded = false;
  bool timing = true;
  std::chrono::steady_clock::time_point when;
  CUstream_st* stream = nullptr;  // where it was last recorded
};
}  // namespace gpulab::emulated::types

namespace gpulab::emulated {

namespace {

struct ErrorState {
  cudaError_t code = cudaSuccess;
  std::string detail;
};
thread_local ErrorState& last = *new ErrorState;  // (heap: see memory_counter.cpp's log)

// Copies to host memory queued with cudaMemcpyAsync and not yet waited for, per stream. The
// emulator does each at once, but on a GPU the host may read the memory before they happen:
// unfinished_copies_to_host() lets a grader say so where the emulator's order would hide it.
std::mutex& queued_mutex() {
  static std::mutex m;
  return m;
}
std::map<const void*, std::size_t>& queued() {
  static std::map<const void*, std::size_t> q;
  return q;
}
void queued_to_host(const void* stream) {
  std::lock_guard lock(queued_mutex());
  ++queued()[stream];
}
void waited_for(const void* stream) {
  std::lock_guard lock(queued_mutex());
  if (stream == nullptr || stream == cudaStreamLegacy) {
    queued().clear();  // the legacy default stream waits for the blocking streams' earlier work
  } else {
    queued().erase(stream);
  }
}
void waited_for_all() {
  std::lock_guard lock(queued_mutex());
  queued().clear();
}

struct Names {
  cudaError_t code;
  const char* name;
  const char* text;
};
constexpr Names kNames[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered"},
    {cudaErrorMisalignedAddress, "cudaErrorMisalignedAddress", "misaligned address"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorCooperativeLaunchTooLarge, "cudaErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch"},
    {cudaErrorNotPermitted, "cudaErrorNotPermitted", "operation not permitted"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

const Names& names(cudaError_t code) {
  for (const Names& n : kNames) {
    if (n.code == code) return n;
  }
  return kNames[std::size(kNames) - 1];
}

// A fault of a kernel that ran (not a refused launch): what a GPU's next synchronising call
// returns too, so a program that checks only its cudaMemcpy or cudaDeviceSynchronize sees it.
cudaError_t pending_fault() {
  switch (last.code) {
    case cudaErrorIllegalAddress:
    case cudaErrorMisalignedAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
      return last.code;
    default:
      return cudaSuccess;
  }
}

// A runtime call that fails. In a learner's program (gpulab_run) it is also said on stderr, as
// compute-sanitizer reports a failed API call, with what the emulator saw: the program's own check
// may print only CUDA's one-line message ("invalid argument").
cudaError_t fail(cudaError_t code, std::string detail) {
  if (check::launches_go_on()) {
    std::fprintf(stderr, "========= Program hit %s on a CUDA API call: %s\n", error_message(code), detail.c_str());
  }
  record_error(code, std::move(detail));
  return code;
}

std::mutex& dynamic_shared_mutex() {
  static std::mutex m;
  return m;
}
std::map<const void*, int>& dynamic_shared_limits() {
  static std::map<const void*, int> limits;
  return limits;
}

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

const char* error_message(cudaError_t code) {
  thread_local std::string text;
  const Names& n = names(code);
  text = std::string(n.text) + " (" + n.name + ")";
  return text.c_str();
}

void record_error(cudaError_t code, std::string detail) {
  last.code = code;
  last.detail = std::move(detail);
}

const std::string& error_detail() { return last.detail; }

int largest_dynamic_shared_limit() {
  std::lock_guard lock(dynamic_shared_mutex());
  int largest = 0;
  for (const auto& [kernel, bytes] : dynamic_shared_limits()) largest = std::max(largest, bytes);
  return largest;
}

namespace rt {

cudaError_t cudaGetLastError() {
  const cudaError_t code = last.code;
  last.code = cudaSuccess;
  return code;
}
cudaError_t cudaPeekAtLastError() { return last.code; }
const char* cudaGetErrorString(cudaError_t error) { return names(error).text; }
const char* cudaGetErrorName(cudaError_t error) { return names(error).name; }

cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  return device == 0 ? cudaSuccess
                     : fail(cudaErrorInvalidDevice,
                            "the emulator has one device, 0; cudaSetDevice(" + std::to_string(device) + ")");
}
cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device_index) {
  if (device_index != 0) return cudaSetDevice(device_index);
  const DeviceInfo& d = device();
  *prop = cudaDeviceProp{};
  std::snprintf(prop->name, sizeof prop->name, "%s", d.name.c_str());
  prop->totalGlobalMem = std::size_t{16} << 30;
  prop->sharedMemPerBlock = d.shared_memory_per_block;
  prop->regsPerBlock = 65536;
  prop->warpSize = 32;
  prop->memPitch = std::size_t{2147483647};
  prop->maxThreadsPerBlock = d.max_threads_per_block;
  for (int i = 0; i < 3; ++i) prop->maxThreadsDim[i] = d.max_block_dim[i], prop->maxGridSize[i] = d.max_grid_dim[i];
  prop->totalConstMem = 65536;
  prop->major = 9;
  prop->minor = 0;
  prop->textureAlignment = 512;
  prop->multiProcessorCount = d.multiprocessors;
  prop->canMapHostMemory = 1;
  prop->asyncEngineCount = 0;  // copies and kernels do not overlap here
  prop->unifiedAddressing = 1;
  prop->memoryBusWidth = 0;
  prop->l2CacheSize = 0;
  prop->maxThreadsPerMultiProcessor = d.max_threads_per_multiprocessor;
  prop->sharedMemPerMultiprocessor = 228 * 1024;
  prop->regsPerMultiprocessor = 65536;
  prop->managedMemory = 1;
  prop->cooperativeLaunch = 0;
  prop->sharedMemPerBlockOptin = kMaxDynamicShared;
  prop->maxBlocksPerMultiProcessor = 32;
  prop->reservedSharedMemPerBlock = 1024;
  prop->memoryPoolsSupported = 1;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device_index) {
  cudaDeviceProp p;
  if (const cudaError_t e = cudaGetDeviceProperties(&p, device_index); e != cudaSuccess) return e;
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock:
      *value = p.maxThreadsPerBlock;
      break;
    case cudaDevAttrMaxBlockDimX:
      *value = p.maxThreadsDim[0];
      break;
    case cudaDevAttrMaxBlockDimY:
      *value = p.maxThreadsDim[1];
      break;
    case cudaDevAttrMaxBlockDimZ:
      *value = p.maxThreadsDim[2];
      break;
    case cudaDevAttrMaxGridDimX:
      *value = p.maxGridSize[0];
      break;
    case cudaDevAttrMaxGridDimY:
      *value = p.maxGridSize[1];
      break;
    case cudaDevAttrMaxGridDimZ:
      *value = p.maxGridSize[2];
      break;
    case cudaDevAttrMaxSharedMemoryPerBlock:
      *value = static_cast<int>(p.sharedMemPerBlock);
      break;
    case cudaDevAttrTotalConstantMemory:
      *value = static_cast<int>(p.totalConstMem);
      break;
    case cudaDevAttrWarpSize:
      *value = 32;
      break;
    case cudaDevAttrMaxRegistersPerBlock:
      *value = p.regsPerBlock;
      break;
    case cudaDevAttrMultiProcessorCount:
      *value = p.multiProcessorCount;
      break;
    case cudaDevAttrMaxThreadsPerMultiProcessor:
      *value = p.maxThreadsPerMultiProcessor;
      break;
    case cudaDevAttrComputeCapabilityMajor:
      *value = p.major;
      break;
    case cudaDevAttrComputeCapabilityMinor:
      *value = p.minor;
      break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      *value = static_cast<int>(p.sharedMemPerMultiprocessor);
      break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
      *value = static_cast<int>(p.sharedMemPerBlockOptin);
      break;
    case cudaDevAttrMaxRegistersPerMultiprocessor:
      *value = p.regsPerMultiprocessor;
      break;
    case cudaDevAttrMaxBlocksPerMultiprocessor:
      *value = p.maxBlocksPerMultiProcessor;
      break;
    case cudaDevAttrConcurrentKernels:
      *value = 0;
      break;
    case cudaDevAttrAsyncEngineCount:
      *value = 0;
      break;
    case cudaDevAttrUnifiedAddressing:
      *value = 1;
      break;
    case cudaDevAttrManagedMemory:
      *value = 1;
      break;
    case cudaDevAttrCanMapHostMemory:
      *value = 1;
      break;
    case cudaDevAttrMemoryPoolsSupported:
      *value = 1;
      break;
    default:
      *value = 0;
      break;  // clock rates, bus width, L2: nothing the CPU can say
  }
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize() {
  waited_for_all();
  stream_order::host_waited_all();
  return pending_fault();
}
cudaError_t cudaDeviceReset() {
  last = {};
  return cudaSuccess;
}
cudaError_t cudaSetDeviceFlags(unsigned int) { return cudaSuccess; }
cudaError_t cudaDeviceSetLimit(cudaLimit, std::size_t) { return cudaSuccess; }
cudaError_t cudaDeviceGetLimit(std::size_t* value, cudaLimit limit) {
  *value = limit == cudaLimitStackSize ? 256 * 1024 : std::size_t{8} << 20;
  return cudaSuccess;
}
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
cudaError_t cudaDriverGetVersion(int* version) {
  *version = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* version) {
  *version = CUDART_VERSION;
  return cudaSuccess;
}
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

cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, cudaStreamDefault); }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  *stream = new CUstream_st{flags};
  stream_order::created(*stream, (flags & cudaStreamNonBlocking) != 0);
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int) {
  return cudaStreamCreateWithFlags(stream, flags);
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  stream_order::destroyed(stream);
  delete stream;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  waited_for(stream);
  stream_order::host_waited(stream);
  return pending_fault();
}
cudaError_t cudaStreamQuery(cudaStream_t stream) {
  waited_for(stream);  // it answers "done": the host may rely on it
  stream_order::host_waited(stream);
  return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int) {
  stream_order::stream_waits(stream, event);
  return cudaSuccess;
}
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  *least = *greatest = 0;
  return cudaSuccess;
}
cudaError_t cudaLaunchHostFunc(cudaStream_t, cudaHostFn_t fn, void* user_data) {
  fn(user_data);
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  *event = new CUevent_st;
  (*event)->timing = (flags & cudaEventDisableTiming) == 0;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  if (event == nullptr) return fail(cudaErrorInvalidResourceHandle, "cudaEventRecord: a null event");
  event->recorded = true;
  event->when = std::chrono::steady_clock::now();
  event->stream = stream;
  stream_order::event_recorded(event, stream);
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (event == nullptr) return fail(cudaErrorInvalidResourceHandle, "cudaEventSynchronize: a null event");
  waited_for(event->stream);
  stream_order::host_waited_event(event);
  return pending_fault();
}
cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (event == nullptr || !event->recorded) return cudaErrorNotReady;
  stream_order::host_waited_event(event);  // it answers "done": the host may rely on it
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (start == nullptr || end == nullptr)
    return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: a null event");
  if (!start->timing || !end->timing) {
    return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: an event made with cudaEventDisableTiming");
  }
  if (!start->recorded || !end->recorded)
    return fail(cudaErrorNotReady, "cudaEventElapsedTime: an event never recorded");
  static std::once_flag said;
  std::call_once(said, [] {
    std::fprintf(stderr, "gpulab emulator: event times are CPU times of the emulation, not GPU times\n");
  });
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  stream_order::event_destroyed(event);
  delete event;
  return cudaSuccess;
}

void set_dynamic_shared_limit(const void* kernel, int bytes) {
  std::lock_guard lock(dynamic_shared_mutex());
  dynamic_shared_limits()[kernel] = std::min<int>(bytes, static_cast<int>(kMaxDynamicShared));
}
int dynamic_shared_limit(const void* kernel) {
  std::lock_guard lock(dynamic_shared_mutex());
  const auto it = dynamic_shared_limits().find(kernel);
  return it == dynamic_shared_limits().end() ? 48 * 1024 : it->second;
}
cudaError_t occupancy(int* blocks, int block_size, std::size_t shared_bytes) {
  if (block_size <= 0 || block_size > 1024) return fail(cudaErrorInvalidValue, "occupancy: block size out of range");
  int b = std::min(2048 / block_size, 32);
  if (shared_bytes > 0) b = std::min(b, static_cast<int>((228 * 1024) / shared_bytes));
  *blocks = b;
  return cudaSuccess;
}
cudaError_t cudaLaunchKernel(const void*, dim3, dim3, void**, std::size_t, cudaStream_t) {
  return fail(cudaErrorInvalidDeviceFunction,
              "cudaLaunchKernel: pass the kernel itself, not (void*)kernel — the emulator needs its parameter "
              "types to unpack the arguments");
}

std::size_t unfinished_copies_to_host() {
  std::lock_guard lock(queued_mutex());
  std::size_t total = 0;
  for (const auto& [stream, count] : queued()) total += count;
  return total;
}

}  // namespace rt

}  // namespace gpulab::emulated
