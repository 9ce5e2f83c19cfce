// The CUDA runtime, as Python's gpulab package calls it (through ctypes): a C interface over the
// few calls an array library needs — memory, copies, streams, events, the device's properties and
// errors. The same file builds twice: against GPU Lab's emulator (libgpulab_python_emulated.so,
// which holds the emulator itself, so that every kernel module Python loads shares its memory and
// its checks) and by nvcc against CUDA's own runtime (libgpulab_python_gpu.so). Every function
// returns CUDA's error code; gl_error_text says what went wrong, the emulator's explanation included.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>
#include <string>

#ifdef GPULAB_PYTHON_EMULATED
#include "emulator/observers/checker.hpp"
#include "emulator/runtime/errors.hpp"
#endif

namespace {

thread_local std::string last_text;

#ifdef GPULAB_PYTHON_EMULATED
// The checked mode's reports reach Python in the launch's error, raised as one exception: not
// also written to stderr as they are made (a notebook would show each twice).
const bool quiet_reports = (gpulab::emulated::check::write_reports_to_stderr(false), true);
#endif

int done(cudaError_t code) { return static_cast<int>(code); }

}  // namespace

extern "C" {

int gl_backend_is_gpu() {
#ifdef GPULAB_PYTHON_EMULATED
  return 0;
#else
  return 1;
#endif
}

// The message of an error code, with what the emulator saw where it has an explanation (the
// launch, its configuration, the checked mode's report). Valid until the next call on this thread.
const char* gl_error_text(int code) {
  last_text = std::string(cudaGetErrorName(static_cast<cudaError_t>(code))) + ": " +
              cudaGetErrorString(static_cast<cudaError_t>(code));
#ifdef GPULAB_PYTHON_EMULATED
  if (const std::string& detail = gpulab::emulated::error_detail(); !detail.empty()) last_text += "\n" + detail;
#endif
  return last_text.c_str();
}

int gl_get_last_error() { return done(cudaGetLastError()); }

// A buffer named for the checked mode's reports: `name` (the array's type and shape) created at
// `file`:`line` (the Python line that made it).
int gl_malloc(void** ptr, std::size_t bytes, const char* name, const char* file, int line, std::size_t element_bytes) {
#ifdef GPULAB_PYTHON_EMULATED
  return done(gpulab::emulated::rt::malloc_named(ptr, bytes, name, file, line, element_bytes));
#else
  (void)name, (void)file, (void)line, (void)element_bytes;
  return done(cudaMalloc(ptr, bytes));
#endif
}
int gl_free(void* ptr) { return done(cudaFree(ptr)); }
// kind: cudaMemcpyKind (1 host to device, 2 device to host, 3 device to device).
int gl_memcpy(void* dst, const void* src, std::size_t bytes, int kind, void* stream) {
  if (stream == nullptr) return done(cudaMemcpy(dst, src, bytes, static_cast<cudaMemcpyKind>(kind)));
  return done(cudaMemcpyAsync(dst, src, bytes, static_cast<cudaMemcpyKind>(kind), static_cast<cudaStream_t>(stream)));
}
int gl_memset(void* dst, int value, std::size_t bytes, void* stream) {
  return done(cudaMemsetAsync(dst, value, bytes, static_cast<cudaStream_t>(stream)));
}

int gl_device_count(int* count) { return done(cudaGetDeviceCount(count)); }
int gl_set_device(int device) { return done(cudaSetDevice(device)); }
int gl_get_device(int* device) { return done(cudaGetDevice(device)); }
int gl_device_synchronize() { return done(cudaDeviceSynchronize()); }
int gl_mem_get_info(std::size_t* free_bytes, std::size_t* total_bytes) {
  return done(cudaMemGetInfo(free_bytes, total_bytes));
}
int gl_runtime_version(int* version) { return done(cudaRuntimeGetVersion(version)); }
int gl_driver_version(int* version) { return done(cudaDriverGetVersion(version)); }

// The properties CuPy's getDeviceProperties gives most often, as numbers in a fixed order
// (python/gpulab/cupy/cuda/runtime.py names them), and the name.
int gl_device_properties(int device, char* name, std::size_t name_bytes, long long* values, int count) {
  cudaDeviceProp p{};
  const cudaError_t e = cudaGetDeviceProperties(&p, device);
  if (e != cudaSuccess) return done(e);
  std::snprintf(name, name_bytes, "%s", p.name);
  const long long all[] = {static_cast<long long>(p.totalGlobalMem),
                           static_cast<long long>(p.sharedMemPerBlock),
                           p.regsPerBlock,
                           p.warpSize,
                           p.maxThreadsPerBlock,
                           p.maxThreadsDim[0],
                           p.maxThreadsDim[1],
                           p.maxThreadsDim[2],
                           p.maxGridSize[0],
                           p.maxGridSize[1],
                           p.maxGridSize[2],
                           static_cast<long long>(p.totalConstMem),
                           p.major,
                           p.minor,
                           p.multiProcessorCount,
                           p.l2CacheSize,
                           p.maxThreadsPerMultiProcessor,
                           static_cast<long long>(p.sharedMemPerMultiprocessor),
                           static_cast<long long>(p.sharedMemPerBlockOptin),
                           p.memoryBusWidth};
  for (int i = 0; i < count && i < static_cast<int>(sizeof all / sizeof all[0]); ++i) values[i] = all[i];
  return 0;
}

int gl_stream_create(void** stream, int non_blocking) {
  return done(cudaStreamCreateWithFlags(reinterpret_cast<cudaStream_t*>(stream),
                                        non_blocking != 0 ? cudaStreamNonBlocking : cudaStreamDefault));
}
int gl_stream_destroy(void* stream) { return done(cudaStreamDestroy(static_cast<cudaStream_t>(stream))); }
int gl_stream_synchronize(void* stream) { return done(cudaStreamSynchronize(static_cast<cudaStream_t>(stream))); }
int gl_stream_query(void* stream) { return done(cudaStreamQuery(static_cast<cudaStream_t>(stream))); }
int gl_stream_wait_event(void* stream, void* event) {
  return done(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), static_cast<cudaEvent_t>(event), 0));
}

int gl_event_create(void** event, int timing) {
  return done(cudaEventCreateWithFlags(reinterpret_cast<cudaEvent_t*>(event),
                                       timing != 0 ? cudaEventDefault : cudaEventDisableTiming));
}
int gl_event_destroy(void* event) { return done(cudaEventDestroy(static_cast<cudaEvent_t>(event))); }
int gl_event_record(void* event, void* stream) {
  return done(cudaEventRecord(static_cast<cudaEvent_t>(event), static_cast<cudaStream_t>(stream)));
}
int gl_event_synchronize(void* event) { return done(cudaEventSynchronize(static_cast<cudaEvent_t>(event))); }
int gl_event_query(void* event) { return done(cudaEventQuery(static_cast<cudaEvent_t>(event))); }
int gl_event_elapsed(float* ms, void* start, void* end) {
  return done(cudaEventElapsedTime(ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(end)));
}

}  // extern "C"
