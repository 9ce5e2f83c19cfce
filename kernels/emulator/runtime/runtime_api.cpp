// The CUDA runtime API on the emulator (see runtime_api.hpp).
#include "emulator/runtime/runtime_api.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

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

struct ErrorState {
  cudaError_t code = cudaSuccess;
  std::string detail;
};
thread_local ErrorState& last = *new ErrorState;  // (heap: see memory_counter.cpp's log)

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

std::mutex& dynamic_shared_mutex() {
  static std::mutex m;
  return m;
}
std::map<const void*, int>& dynamic_shared_limits() {
  static std::map<const void*, int> limits;
  return limits;
}

}  // namespace

namespace runtime_internal {

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

}  // namespace runtime_internal

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

}  // namespace rt

}  // namespace gpulab::emulated
