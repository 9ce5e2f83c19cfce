#pragma once
// CUDA's handles as RAII types (GPU builds only): an event, a stream, and a CUDA graph captured
// from the work a function queues with its instantiated copy — the one capture the lessons' graph
// variants share (lesson 07's cuBLAS step, 08's pipeline, 10's data-parallel step, 16's CNN step).
// Each belongs to the GPU current when it was made and is destroyed there, whichever GPU is
// current by then (lesson 10 holds some on every GPU).
//
// Capturing records each call on the captured stream (and on streams that join it through events)
// as a node of a graph instead of running it. If the work throws, the capture is ended so the
// stream can be used again, the partial graph is destroyed and the error goes on.
#include <cuda_runtime.h>

#include <utility>

#include "common/cuda_check.hpp"

namespace gpulab {

// Makes `device` current for the lifetime of a scope, then puts back the one that was current
// before (always: a library called inside, such as NCCL, may switch devices too). `quiet`, for
// destructors: errors are ignored, as nothing is left to do about them there.
class CurrentDevice {
 public:
  explicit CurrentDevice(int device, bool quiet = false) {
    if (quiet) {
      restore_ = cudaGetDevice(&previous_) == cudaSuccess && cudaSetDevice(device) == cudaSuccess;
      return;
    }
    GPULAB_CUDA_CHECK(cudaGetDevice(&previous_));
    GPULAB_CUDA_CHECK(cudaSetDevice(device));
    restore_ = true;
  }
  ~CurrentDevice() {
    if (restore_) cudaSetDevice(previous_);
  }
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;

 private:
  int previous_ = 0;
  bool restore_ = false;
};

inline int current_device() {
  int device = 0;
  GPULAB_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

// Makes something on `device` (a handle below): f() with that device current.
template <typename F>
auto made_on(int device, F f) {
  CurrentDevice on(device);
  return f();
}

// An event of the current device: `timed` to measure between two (cudaEventElapsedTime), else for
// ordering only (cheaper).
class Event {
 public:
  explicit Event(bool timed = true) : device_(current_device()) {
    GPULAB_CUDA_CHECK(cudaEventCreateWithFlags(&handle_, timed ? cudaEventDefault : cudaEventDisableTiming));
  }
  ~Event() {
    if (handle_ == nullptr) return;
    CurrentDevice on(device_, true);
    cudaEventDestroy(handle_);
  }
  // Movable, so events may be kept in a vector (a pipeline's marks, four a chunk).
  Event(Event&& other) noexcept : device_(other.device_), handle_(std::exchange(other.handle_, nullptr)) {}
  Event& operator=(Event&& other) noexcept {
    std::swap(device_, other.device_);
    std::swap(handle_, other.handle_);
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return handle_; }
  void record(cudaStream_t stream = nullptr) const { GPULAB_CUDA_CHECK(cudaEventRecord(handle_, stream)); }
  // Milliseconds from `start` to this event (both recorded and passed).
  double ms_since(const Event& start) const {
    float ms = 0;
    GPULAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start.handle_, handle_));
    return ms;
  }

 private:
  int device_;
  cudaEvent_t handle_ = nullptr;
};

// A stream of the current device that does not wait for the legacy default stream.
class Stream {
 public:
  Stream() : device_(current_device()) {
    GPULAB_CUDA_CHECK(cudaStreamCreateWithFlags(&handle_, cudaStreamNonBlocking));
  }
  ~Stream() {
    if (handle_ == nullptr) return;
    CurrentDevice on(device_, true);
    cudaStreamDestroy(handle_);
  }
  Stream(Stream&& other) noexcept : device_(other.device_), handle_(std::exchange(other.handle_, nullptr)) {}
  Stream& operator=(Stream&& other) noexcept {
    std::swap(device_, other.device_);
    std::swap(handle_, other.handle_);
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return handle_; }
  int device() const { return device_; }

 private:
  int device_;
  cudaStream_t handle_ = nullptr;
};

// An instantiated graph, launched as often as wanted; empty until a capture fills it.
class GraphExec {
 public:
  GraphExec() = default;
  explicit GraphExec(cudaGraphExec_t exec) : device_(current_device()), exec_(exec) {}
  ~GraphExec() { reset(); }
  GraphExec(GraphExec&& other) noexcept : device_(other.device_), exec_(std::exchange(other.exec_, nullptr)) {}
  GraphExec& operator=(GraphExec&& other) noexcept {
    if (this != &other) {
      reset();
      device_ = other.device_;
      exec_ = std::exchange(other.exec_, nullptr);
    }
    return *this;
  }
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;

  explicit operator bool() const { return exec_ != nullptr; }
  void launch(cudaStream_t stream) const { GPULAB_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }
  void reset() {
    if (exec_ == nullptr) return;
    CurrentDevice on(device_, true);
    cudaGraphExecDestroy(exec_);
    exec_ = nullptr;
  }

 private:
  int device_ = 0;
  cudaGraphExec_t exec_ = nullptr;
};

// What `work()` queues on `stream` (not the legacy default stream, which cannot be captured),
// captured and instantiated. `mode`: cudaStreamCaptureModeThreadLocal where one thread captures,
// Relaxed where several threads capture at once (one GPU each, lesson 10).
// [snippet:capture_graph]
template <typename Work>
GraphExec capture_graph(cudaStream_t stream, Work&& work,
                        cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal) {
  struct Graph {  // destroyed however the capture ends; the instantiated copy lives on
    cudaGraph_t handle = nullptr;
    ~Graph() {
      if (handle != nullptr) cudaGraphDestroy(handle);
    }
  } graph;
  // Nothing runs while capturing: each launch on the stream becomes a node of the graph.
  GPULAB_CUDA_CHECK(cudaStreamBeginCapture(stream, mode));
  try {
    std::forward<Work>(work)();
  } catch (...) {
    cudaStreamEndCapture(stream, &graph.handle);  // leaves the stream usable; the error goes on
    throw;
  }
  GPULAB_CUDA_CHECK(cudaStreamEndCapture(stream, &graph.handle));
  cudaGraphExec_t exec = nullptr;
  GPULAB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph.handle, 0));
  return GraphExec(exec);
}
// [/snippet]

}  // namespace gpulab
