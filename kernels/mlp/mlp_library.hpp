#pragma once
// The GPU-only ways to run lesson 07's layer-by-layer step: its GEMMs by cuBLAS, and the whole
// step captured once in a CUDA graph and replayed (GPU builds only; elsewhere they say so).
#include <memory>
#include <span>

#include "mlp/mlp.hpp"

namespace gpulab::mlp {

// layered_step's GEMM by cuBLAS (FP32), for StepOptions::gemm.
void cublas_gemm(bool ta, bool tb, const float* a, const float* b, float* c, int m, int n, int k, void* stream);

// layered_step, captured in a CUDA graph the first time it runs on these buffers and replayed
// after that: one launch of the graph instead of one per kernel, so the GPU runs the kernels back
// to back without waiting for the host to issue each one. A graph holds its kernels' arguments,
// so new buffers, a new network or a new learning rate mean a new capture.
class GraphStep {
 public:
  virtual ~GraphStep() = default;
  // As layered_step; the graph runs on the default stream, in order with the caller's copies.
  virtual void run(const Layout& net, std::span<float> params, std::span<const float> x, std::span<const float> t,
                   int batch, float lr, Loss loss_kind, std::span<float> workspace, std::span<float> loss) = 0;
};
// A graph step whose GEMMs are `gemm` (null: the lesson's kernel; else cublas_gemm).
std::unique_ptr<GraphStep> graph_step(GemmFunction gemm);

}  // namespace gpulab::mlp
