#pragma once
// The GPU-only ways to run lesson 07's layer-by-layer step: its GEMMs by cuBLAS, and the whole
// step captured once in a CUDA graph and replayed (GPU builds only).
#include <span>
#include <vector>

#include <cuda_runtime_api.h>

#include "mlp/mlp.hpp"

namespace gpulab::gpu::mlp {
using gpulab::mlp::GemmFunction;

// layered_step's GEMM by cuBLAS (FP32), for StepOptions::gemm.
void cublas_gemm(bool ta, bool tb, const float* a, const float* b, float* c, int m, int n, int k, void* stream);

// layered_step, captured in a CUDA graph the first time it runs on these buffers and replayed
// after that: one launch of the graph instead of one per kernel, so the GPU runs the kernels back
// to back without waiting for the host to issue each one. A graph holds its kernels' arguments,
// so new buffers, a new network or a new learning rate mean a new capture.
class GraphStep {
 public:
  explicit GraphStep(GemmFunction gemm = nullptr) : gemm_(gemm) {}
  GraphStep(const GraphStep&) = delete;
  GraphStep& operator=(const GraphStep&) = delete;
  ~GraphStep();

  // As layered_step; the graph runs on the default stream, in order with the caller's copies.
  void run(const Layout& net, std::span<float> params, std::span<const float> x, std::span<const float> t, int batch,
           float lr, Loss loss_kind, std::span<float> workspace, std::span<float> loss);

 private:
  // What a captured graph depends on besides the widths (kept apart in sizes_, so checking a
  // step against the graph allocates nothing).
  struct Key {
    const void* pointers[5];
    int batch;
    float lr;
    Loss loss;
    bool operator==(const Key&) const = default;
  };
  void capture(const Key& key, const Layout& net, std::span<float> params, std::span<const float> x,
               std::span<const float> t, int batch, float lr, Loss loss_kind, std::span<float> workspace,
               std::span<float> loss);
  void release();

  GemmFunction gemm_;
  cudaStream_t stream_ = nullptr;  // the capture's stream (the legacy default stream cannot be captured)
  cudaGraphExec_t exec_ = nullptr;
  Key key_{};
  std::vector<int> sizes_;
};

}  // namespace gpulab::gpu::mlp
