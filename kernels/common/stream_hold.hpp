#pragma once
// Holding the default stream while the host queues work behind it (GPU builds only).
//
// A phase timed by two CUDA events around work the host queues on an idle GPU also times the
// host: the start event runs as soon as it is recorded, and the GPU then waits for the launch
// behind it (10–30 µs on an H100 or H200 after a synchronous copy, a third of a 50 µs kernel).
// Holding the stream first, and letting go once the work and the stop event are queued, leaves
// only the GPU's time between the events — what Nsight Compute calls a kernel's duration.
#include <cstdint>

namespace gpulab::gpu {

class StreamHold {
 public:
  StreamHold();
  ~StreamHold();
  StreamHold(const StreamHold&) = delete;
  StreamHold& operator=(const StreamHold&) = delete;

  // Queues, on the default stream, a one-thread kernel that spins until release() or until
  // `timeout_us` have passed (the host waiting for the GPU in between — a synchronous call in the
  // work queued behind it — would otherwise wait for ever).
  void hold(std::uint32_t timeout_us);
  void release();
  // After the stream has passed the hold: whether it ran out of time instead of being released.
  bool timed_out() const;

 private:
  int* flags_ = nullptr;         // pinned and mapped: [0] released by the host, [1] timed out by the GPU
  int* device_flags_ = nullptr;  // the same memory, as the GPU addresses it
};

}  // namespace gpulab::gpu
