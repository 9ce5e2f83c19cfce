#pragma once
// Lesson 10: lesson 07's network trained on several GPUs of one machine (GPU builds only).
//
//   DataParallel   every GPU holds all the parameters and takes its share of each batch; after
//                  the backward pass the gradients are averaged over the GPUs (NCCL all-reduce),
//                  so every GPU makes the same update and the copies stay identical
//   ModelParallel  the layers are split over the GPUs; activations travel forward from GPU to
//                  GPU and deltas travel back
//
// Host spans are host memory. step() queues the work on every GPU and makes GPU 0's default
// stream wait for all of it, so CUDA events there time the step. Every call leaves the current
// device as it found it.
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "mlp/mlp.hpp"

namespace gpulab::gpu::multi_gpu {

using gpulab::mlp::GemmFunction;
using gpulab::mlp::Layout;
using gpulab::mlp::Loss;

// The GPUs this process sees (0 without a driver or a GPU).
int visible_gpus();

// What one GPU did during a step, in milliseconds from the first GPU's start (record_step):
// "forward", "backward" (of `layer`), "all-reduce" (of `layer`'s gradients, and its update; on a
// stream beside the step's), "update" (one GPU: every layer's, on the step's stream); and on GPU
// 0's default stream, where events around step() are recorded, "launch" (from before step() to
// the first GPU's start; it starts before 0) and "join" (from the last GPU's end to after step()).
struct StepSpan {
  int gpu = 0;
  std::string phase;
  int layer = -1;
  double start_ms = 0, end_ms = 0;
};

class DataParallel {
 public:
  // `batch` examples per GPU; `gemm` null: the lesson's GEMM kernel, else e.g. cuBLAS's. With one
  // GPU there is nothing to average and NCCL is not needed. A host thread per GPU queues that
  // GPU's part of each step (gpu_threads.hpp). `graph`: each GPU's part of the step (its kernels,
  // its share of the all-reduce, its update) is captured once in a CUDA graph and launched as
  // one, so the host issues 1 call per GPU instead of about 15.
  DataParallel(const Layout& net, int gpus, int batch, GemmFunction gemm, bool graph = false);
  // A process's part of a step over `ranks` processes, one GPU each (`mpirun`): this process's
  // GPU 0, averaging over `comm`, a communicator of the `ranks` processes from ncclCommInitRank
  // (this object destroys it). The same step as above, each process queueing its own GPU's part.
  DataParallel(const Layout& net, ncclComm_t comm, int ranks, int batch, GemmFunction gemm, bool graph);
  ~DataParallel();
  DataParallel(const DataParallel&) = delete;
  DataParallel& operator=(const DataParallel&) = delete;

  int gpus() const;
  void set_parameters(std::span<const float> params);  // the same on every GPU
  // gpus × batch examples: GPU g takes rows g·batch … (g + 1)·batch − 1 of x and t.
  void set_batch(std::span<const float> x, std::span<const float> t);
  void step(float lr, Loss loss);
  // One step, its phases on every GPU read from the GPUs' clocks (step_clock.hpp) as they ran:
  // where the time of a step over several GPUs goes. Waits for the step.
  std::vector<StepSpan> record_step(float lr, Loss loss);
  void parameters(int gpu, std::span<float> out) const;  // waits for the step
  float loss() const;                                    // the mean over all GPUs' examples

 private:
  struct Replicas;
  void set_up(const Layout& net, int gpus, int ranks, int batch, GemmFunction gemm, bool graph);
  void run_step(float lr, Loss loss, bool stamped);
  void queue(int gpu, float lr, Loss loss, bool stamped);
  void capture(float lr, Loss loss, bool stamped);
  std::unique_ptr<Replicas> r_;
};

class ModelParallel {
 public:
  // Layer l on GPU l · used / layers, used = min(gpus, layers): contiguous layers share a GPU.
  ModelParallel(const Layout& net, int gpus, int batch, GemmFunction gemm);
  ~ModelParallel();
  ModelParallel(const ModelParallel&) = delete;
  ModelParallel& operator=(const ModelParallel&) = delete;

  int gpus_used() const;
  int device_of_layer(int l) const;
  void set_parameters(std::span<const float> params);  // each layer's to its GPU
  void set_batch(std::span<const float> x, std::span<const float> t);
  void step(float lr, Loss loss);
  void parameters(std::span<float> out) const;  // gathered into the flat layout; waits
  float loss() const;

 private:
  struct Stages;
  std::unique_ptr<Stages> s_;
};

}  // namespace gpulab::gpu::multi_gpu
