#pragma once
// Work in two streams that touches the same device memory with nothing ordering it.
//
// The emulator does each stream operation at once, in the order the host queues them, so a kernel
// in one stream that reads what another stream's kernel writes always sees the finished result —
// where a GPU runs the two at the same time. This file keeps CUDA's order instead of the
// emulator's: a vector clock per stream (a count of operations per stream that it has waited
// for), joined as CUDA joins them — the legacy default stream with every blocking stream,
// cudaEventRecord / cudaStreamWaitEvent, and whatever the host has waited for (cudaStreamSynchronize,
// cudaEventSynchronize, cudaDeviceSynchronize, a synchronous cudaMemcpy) before it queues more.
// Each operation's reads and writes of a buffer (a copy's range; a checked kernel's, the span of
// what its threads touched) are compared with the buffer's recent accesses by other streams; a
// pair with a write that neither clock orders is reported as racecheck's hazard between streams.
// Nothing is kept until a program creates a stream: one stream is always in order.
#include <cstddef>
#include <cstdint>

#include "emulator/runtime/runtime_types.hpp"

namespace gpulab::emulated::stream_order {

// Whether the running kernel's accesses are wanted (a stream exists and a checked kernel runs).
extern bool collecting;

void created(cudaStream_t stream, bool non_blocking);
void destroyed(cudaStream_t stream);

// An operation queued in `stream`: `what` names it ("kernel scale", "cudaMemcpyAsync"); a
// kernel's (one launch runs at a time) or the calling host thread's copy or fill.
void begin(cudaStream_t stream, const char* what, bool kernel);
// What the running operation touched — the calling host thread's, or on a worker the launch's:
// [begin, begin + bytes) of device memory.
void touched(std::uintptr_t begin, std::size_t bytes, bool write);
// The operation is done: its accesses are checked against the other streams' and kept.
void end(bool kernel);

// begin() ... end() for a scope.
class Operation {
 public:
  Operation(cudaStream_t stream, const char* what, bool kernel = false) : kernel_(kernel) {
    begin(stream, what, kernel);
  }
  ~Operation() { end(kernel_); }
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;

 private:
  bool kernel_;
};

void event_recorded(cudaEvent_t event, cudaStream_t stream);
void stream_waits(cudaStream_t stream, cudaEvent_t event);
void event_destroyed(cudaEvent_t event);

// The host waited: for a stream's work, an event, or everything.
void host_waited(cudaStream_t stream);
void host_waited_event(cudaEvent_t event);
void host_waited_all();

}  // namespace gpulab::emulated::stream_order
