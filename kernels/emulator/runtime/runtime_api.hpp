#pragma once
// The CUDA runtime API on the emulator: what host code calls (cudaMalloc, cudaMemcpy, streams,
// events, device properties, occupancy, ...), with CUDA's names, arguments and error codes.
// Device memory is host memory in the checked mode's arena (memory.hpp); streams run their work in order,
// each operation to its end before the call returns; event times are CPU times. Anything not
// listed here is not emulated and fails to compile, rather than doing something else quietly.
//
// The functions live in gpulab::emulated::rt (brought into the global namespace), so a program
// that holds the GPU build too links both without a clash.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>

#include "emulator/language/cuda_language.hpp"
#include "emulator/observers/upload_watch.hpp"
#include "emulator/runtime/errors.hpp"
#include "emulator/runtime/runtime_types.hpp"

namespace gpulab::emulated {
// Host-side writes of device memory: initialised, for initcheck (memory.hpp).
void note_host_write(const void* p, std::size_t bytes);
// A managed buffer: the host may touch it, under the grader's host guard too (memory.hpp).
void mark_managed(const void* p);
}  // namespace gpulab::emulated

namespace gpulab::emulated::rt {

// Copies to host memory (cudaMemcpyAsync) queued and not waited for since (no cudaStreamSynchronize,
// cudaEventSynchronize, cudaDeviceSynchronize or blocking cudaMemcpy after them): done at once by
// the emulator, perhaps not yet on a GPU. (Not CUDA's: GPU Lab's grader asks.)
std::size_t unfinished_copies_to_host();

// ---- errors
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);

// ---- the device
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaDeviceSetLimit(cudaLimit limit, std::size_t value);
cudaError_t cudaDeviceGetLimit(std::size_t* value, cudaLimit limit);
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config);
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaRuntimeGetVersion(int* version);
cudaError_t cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total_bytes);

// ---- memory. cudaMalloc and cudaMallocManaged are macros (below) that pass the pointer's name,
// so a checked-mode report can say which buffer an access overran.
// (element_bytes: the pointee's size, so a report can count in elements; 1 for void*.)
cudaError_t malloc_named(void** ptr, std::size_t bytes, const char* name, const char* file, int line,
                         std::size_t element_bytes = 1);
template <typename T>
constexpr std::size_t element_size() {
  if constexpr (std::is_void_v<T>) {
    return 1;
  } else {
    return sizeof(T);
  }
}
template <typename T>
cudaError_t malloc_named(T** ptr, std::size_t bytes, const char* name, const char* file, int line) {
  return malloc_named(reinterpret_cast<void**>(ptr), bytes, name, file, line, element_size<T>());
}
template <typename T>
cudaError_t managed_named(T** ptr, const char* name, const char* file, int line, std::size_t bytes,
                          unsigned int /*flags*/ = cudaMemAttachGlobal) {
  const cudaError_t e = malloc_named(reinterpret_cast<void**>(ptr), bytes, name, file, line, element_size<T>());
  // The host writes managed memory directly, which no check sees: it counts as initialised.
  if (e == cudaSuccess) note_host_write(*ptr, bytes);
  if (e == cudaSuccess) uploads::host_visible(*ptr, bytes);
  if (e == cudaSuccess) mark_managed(*ptr);
  return e;
}
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMallocHost(void** ptr, std::size_t bytes);
template <typename T>
cudaError_t cudaMallocHost(T** ptr, std::size_t bytes) {
  return cudaMallocHost(reinterpret_cast<void**>(ptr), bytes);
}
cudaError_t cudaHostAlloc(void** ptr, std::size_t bytes, unsigned int flags);
template <typename T>
cudaError_t cudaHostAlloc(T** ptr, std::size_t bytes, unsigned int flags) {
  return cudaHostAlloc(reinterpret_cast<void**>(ptr), bytes, flags);
}
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaMallocPitch(void** ptr, std::size_t* pitch, std::size_t width, std::size_t height);
template <typename T>
cudaError_t cudaMallocPitch(T** ptr, std::size_t* pitch, std::size_t width, std::size_t height) {
  return cudaMallocPitch(reinterpret_cast<void**>(ptr), pitch, width, height);
}
cudaError_t cudaMallocAsync(void** ptr, std::size_t bytes, cudaStream_t stream);
template <typename T>
cudaError_t cudaMallocAsync(T** ptr, std::size_t bytes, cudaStream_t stream) {
  return cudaMallocAsync(reinterpret_cast<void**>(ptr), bytes, stream);
}
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream);

cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream = nullptr);
cudaError_t cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                         std::size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                              std::size_t height, cudaMemcpyKind kind, cudaStream_t stream = nullptr);
cudaError_t cudaMemset(void* dst, int value, std::size_t bytes);
cudaError_t cudaMemsetAsync(void* dst, int value, std::size_t bytes, cudaStream_t stream = nullptr);
cudaError_t cudaMemset2D(void* dst, std::size_t pitch, int value, std::size_t width, std::size_t height);

// __constant__ and __device__ variables are ordinary variables here: the symbol functions copy
// into and out of them, checking the range.
cudaError_t symbol_copy(void* dst, const void* src, std::size_t bytes, std::size_t offset, std::size_t symbol_bytes,
                        bool to_symbol);
template <typename T>
cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, std::size_t bytes, std::size_t offset = 0,
                               cudaMemcpyKind /*kind*/ = cudaMemcpyHostToDevice) {
  return symbol_copy(const_cast<std::remove_const_t<T>*>(&symbol), src, bytes, offset, sizeof(T), true);
}
template <typename T>
cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, std::size_t bytes, std::size_t offset = 0,
                                    cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t /*stream*/ = nullptr) {
  return cudaMemcpyToSymbol(symbol, src, bytes, offset, kind);
}
template <typename T>
cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, std::size_t bytes, std::size_t offset = 0,
                                 cudaMemcpyKind /*kind*/ = cudaMemcpyDeviceToHost) {
  return symbol_copy(dst, &symbol, bytes, offset, sizeof(T), false);
}
template <typename T>
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, std::size_t bytes, std::size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t /*stream*/ = nullptr) {
  return cudaMemcpyFromSymbol(dst, symbol, bytes, offset, kind);
}
template <typename T>
cudaError_t cudaGetSymbolAddress(void** ptr, const T& symbol) {
  *ptr = const_cast<std::remove_const_t<T>*>(&symbol);
  return cudaSuccess;
}
template <typename T>
cudaError_t cudaGetSymbolSize(std::size_t* size, const T&) {
  *size = sizeof(T);
  return cudaSuccess;
}

// ---- streams and events. Work runs when it is queued, in order; an event records the CPU clock
// when every operation queued before it has finished.
cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest);
using cudaHostFn_t = void (*)(void* user_data);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data);
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);

// ---- kernels: attributes, occupancy and launches without <<<>>>
// Dynamic shared memory a kernel may ask for beyond 48 KB, as cudaFuncSetAttribute allows.
void set_dynamic_shared_limit(const void* kernel, int bytes);
int dynamic_shared_limit(const void* kernel);
cudaError_t occupancy(int* blocks, int block_size, std::size_t shared_bytes);

template <typename F>
const void* kernel_key(F* kernel) {
  return reinterpret_cast<const void*>(kernel);
}
template <typename F>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, F* kernel) {
  *attributes = cudaFuncAttributes{};
  attributes->maxThreadsPerBlock = 1024;
  attributes->maxDynamicSharedSizeBytes = dynamic_shared_limit(kernel_key(kernel));
  attributes->ptxVersion = attributes->binaryVersion = 90;
  return cudaSuccess;
}
template <typename F>
cudaError_t cudaFuncSetAttribute(F* kernel, cudaFuncAttribute attribute, int value) {
  if (attribute == cudaFuncAttributeMaxDynamicSharedMemorySize) set_dynamic_shared_limit(kernel_key(kernel), value);
  return cudaSuccess;
}
template <typename F>
cudaError_t cudaFuncSetCacheConfig(F*, cudaFuncCache) {
  return cudaSuccess;
}
// CUDA's occupancy calculator with Hopper's limits (2048 threads and 32 blocks per
// multiprocessor, 228 KB of shared memory); registers are not modelled, so a GPU may say less.
template <typename F>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, F, int block_size, std::size_t shared_bytes) {
  return occupancy(blocks, block_size, shared_bytes);
}
template <typename F>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, F kernel, int block_size,
                                                                   std::size_t shared_bytes, unsigned int) {
  return occupancy(blocks, block_size, shared_bytes);
}
template <typename F>
cudaError_t cudaOccupancyMaxPotentialBlockSize(int* min_grid, int* block_size, F, std::size_t shared_bytes = 0,
                                               int limit = 0) {
  int best = 0, best_block = 32;
  for (int b = 32; b <= (limit > 0 ? std::min(limit, 1024) : 1024); b += 32) {
    int blocks = 0;
    occupancy(&blocks, b, shared_bytes);
    if (blocks * b > best) best = blocks * b, best_block = b;
  }
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  *block_size = best_block;
  *min_grid = sms * (best / best_block);
  return cudaSuccess;
}

// cudaLaunchKernel(kernel, grid, block, args, shared_bytes, stream): args[i] points to the i-th
// argument. Pass the kernel itself: a kernel cast to void* has lost its parameter types, which
// the emulator needs.
template <typename... Params>
cudaError_t cudaLaunchKernel(void (*kernel)(Params...), dim3 grid, dim3 block, void** args,
                             std::size_t shared_bytes = 0, cudaStream_t stream = nullptr) {
  auto call = [&]<std::size_t... I>(std::index_sequence<I...>) {
    kernel(*static_cast<std::remove_cvref_t<Params>*>(args[I])...);
  };
  launch_kernel(
      "cudaLaunchKernel", "", 0, [&] { call(std::index_sequence_for<Params...>{}); }, grid, block, shared_bytes,
      stream);
  return cudaPeekAtLastError();
}
cudaError_t cudaLaunchKernel(const void* kernel, dim3 grid, dim3 block, void** args, std::size_t shared_bytes = 0,
                             cudaStream_t stream = nullptr);
template <typename... Params>
cudaError_t cudaLaunchCooperativeKernel(void (*kernel)(Params...), dim3 grid, dim3 block, void** args,
                                        std::size_t shared_bytes = 0, cudaStream_t stream = nullptr) {
  return cudaLaunchKernel(kernel, grid, block, args, shared_bytes, stream);
}

}  // namespace gpulab::emulated::rt

using namespace gpulab::emulated::rt;  // NOLINT: host code calls cudaMalloc & co. unqualified, as in CUDA

#define cudaMalloc(ptr, bytes) ::gpulab::emulated::rt::malloc_named((ptr), (bytes), #ptr, __FILE__, __LINE__)
#define cudaMallocManaged(ptr, ...) ::gpulab::emulated::rt::managed_named((ptr), #ptr, __FILE__, __LINE__, __VA_ARGS__)
