#pragma once
// Lesson 10's data and its GPU runs (multi_gpu_runs.cpp, GPU builds only: elsewhere they say so).
#include <memory>
#include <string>

#include "common/backend.hpp"
#include "common/lesson.hpp"
#include "common/timeline.hpp"
#include "mlp/mlp.hpp"
#include "problems/mlp_step/step_check.hpp"

namespace gpulab::multi_gpu_runs {

// Lesson 07's step on gpus × batch examples.
struct MultiGpuInstance : Instance {
  std::unique_ptr<mlp::StepInstance> step;
  int gpus = 1;
};

// How a GPU variant spreads the step: the whole batch on GPU 0, the batch over the GPUs (data
// parallel), or the layers over the GPUs (model parallel).
enum class Split { one_gpu, data, model };

inline std::string name_of(const std::string& variant, Backend backend) {
  return "multi_gpu " + variant + " (" + std::string(to_string(backend)) + ")";
}

// The GPUs this process sees.
int visible_gpus();

// A run of the step spread as `split` says, its GEMMs by `gemm` (null: the lesson's kernel), each
// GPU's part captured in a CUDA graph where `graph` says so.
std::unique_ptr<Run> gpu_run(const MultiGpuInstance& in, const std::string& name, Split split, mlp::GemmFunction gemm,
                             bool graph);

// Rank 0's process-per-GPU run under mpirun: its own GPU's part of the step, every other
// process told to do its part (process_orders.hpp). Each process its share of in.gpus × batch
// examples: in.gpus must be the number of processes.
std::unique_ptr<Run> process_run(const MultiGpuInstance& in, const std::string& name, mlp::GemmFunction gemm,
                                 bool graph);

// Every process but rank 0 under mpirun: its GPU (the machine's GPU of its local rank) made its
// only one, then rank 0's orders carried out until it says stop; returns the exit status.
int follow_rank0();

// --timeline: one step of a data-parallel variant, phase by phase on every GPU (after two
// recorded steps of warm-up), read from the GPUs' clocks.
Timeline step_timeline(const MultiGpuInstance& in, const std::string& name, mlp::GemmFunction gemm, bool graph);

// --train: the same training on one GPU and on every GPU, step by step.
std::string train_report(const std::string& dataset_name, const std::string& variant, Backend backend, int epochs);

}  // namespace gpulab::multi_gpu_runs
