#pragma once
// What lesson 10's data and model parallelism share: a stream per GPU, and the checks and joins
// around a step over several GPUs (GPU builds only). A scope on one GPU (CurrentDevice) and the
// handles, each destroyed on its own GPU, are cuda_handles.hpp's.
#include <cuda_runtime.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/cuda_handles.hpp"
#include "common/gpu_memory.hpp"
#include "mlp/mlp.hpp"
#include "multi_gpu/multi_gpu.hpp"

namespace gpulab::gpu::multi_gpu {

using gpulab::mlp::StepOptions;
using Buffer = gpu::DeviceBuffer<float>;

inline std::size_t rows(int batch, int width) {
  return static_cast<std::size_t>(batch) * static_cast<std::size_t>(width);
}

// A GPU's stream for its step, with the event that marks where the step ends.
struct GpuStream {
  explicit GpuStream(int gpu)
      : device(gpu), stream(made_on(gpu, [] { return Stream(); })), done(made_on(gpu, [] { return Event(false); })) {}
  int device;
  Stream stream;
  Event done;  // recorded at the end of a step
};

inline void check_gpus(int gpus) {
  const int visible = visible_gpus();
  if (gpus < 1) throw std::invalid_argument("multi-GPU: at least one GPU");
  if (gpus > visible) {
    throw std::invalid_argument("asks for " + std::to_string(gpus) + " GPUs; " + std::to_string(visible) +
                                " visible here");
  }
}

// Every stream waits for what GPU 0's default stream holds now: the steps' streams are
// non-blocking, so without this a step would start as soon as it is queued, before the event a
// program records there to time it. (Lesson 10 once timed its one_gpu step so: the step started
// while the harness held that stream until every launch was queued, and ~100 µs of it went
// uncounted.) `started`: an event of GPU 0's.
inline void fork_from_gpu0(const Event& started, const std::vector<std::unique_ptr<GpuStream>>& streams) {
  {
    CurrentDevice on(0);
    started.record(cudaStreamLegacy);
  }
  for (const auto& s : streams) {
    CurrentDevice on(s->device);
    GPULAB_CUDA_CHECK(cudaStreamWaitEvent(s->stream.get(), started.get()));
  }
}

// GPU 0's default stream waits for every stream's last recorded event, so events recorded there
// after step() time the whole step on every GPU.
inline void join_on_gpu0(const std::vector<std::unique_ptr<GpuStream>>& streams) {
  for (const auto& s : streams) {
    CurrentDevice on(s->device);
    s->done.record(s->stream.get());
  }
  CurrentDevice on(0);
  for (const auto& s : streams) GPULAB_CUDA_CHECK(cudaStreamWaitEvent(cudaStreamLegacy, s->done.get()));
}

// Lets each GPU read and write the others' memory directly where the hardware allows (NVLink or
// PCIe peer-to-peer); elsewhere cudaMemcpyPeerAsync goes through the host.
inline void enable_peer_access(int gpus) {
  for (int a = 0; a < gpus; ++a) {
    for (int b = 0; b < gpus; ++b) {
      int can = 0;
      if (a == b || cudaDeviceCanAccessPeer(&can, a, b) != cudaSuccess || can == 0) continue;
      CurrentDevice on(a);
      const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled) {
        cudaGetLastError();  // not an error for us: clear it
      } else {
        GPULAB_CUDA_CHECK(e);
      }
    }
  }
}

}  // namespace gpulab::gpu::multi_gpu
