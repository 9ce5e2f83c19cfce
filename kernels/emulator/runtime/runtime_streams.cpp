// The CUDA runtime's streams and events on the emulator (runtime_api.hpp). The emulator does a
// stream's work at once, in order; what it keeps is what the host has waited for
// (stream_order.hpp checks the order a GPU would need) and the copies to the host not yet waited
// for, which a GPU might not have finished.
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>

#include "emulator/observers/stream_order.hpp"
#include "emulator/runtime/runtime_api.hpp"
#include "emulator/runtime/runtime_internal.hpp"

namespace gpulab::emulated {

namespace runtime_internal {

namespace {

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
}  // namespace

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

}  // namespace runtime_internal

using namespace runtime_internal;

namespace rt {

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

std::size_t unfinished_copies_to_host() {
  std::lock_guard lock(queued_mutex());
  std::size_t total = 0;
  for (const auto& [stream, count] : queued()) total += count;
  return total;
}

}  // namespace rt

}  // namespace gpulab::emulated
