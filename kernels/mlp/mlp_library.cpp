// cuBLAS and CUDA graphs for lesson 07's layer-by-layer step (GPU builds only).
#include "mlp/mlp_library.hpp"

#include <cuda_runtime.h>

#include "common/cuda_check.hpp"
#include "matmul/matmul_cublas.hpp"

namespace gpulab::gpu::mlp {

void cublas_gemm(bool ta, bool tb, const float* a, const float* b, float* c, int m, int n, int k, void* stream) {
  matmul::cublas_gemm(ta, tb, a, b, c, m, n, k, static_cast<cudaStream_t>(stream));
}

GraphStep::~GraphStep() {
  release();
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

void GraphStep::release() {
  if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  exec_ = nullptr;
}

void GraphStep::run(const Layout& net, std::span<float> params, std::span<const float> x, std::span<const float> t,
                    int batch, float lr, Loss loss_kind, std::span<float> workspace, std::span<float> loss) {
  const Key key{{params.data(), x.data(), t.data(), workspace.data(), loss.data()}, batch, lr, loss_kind};
  if (exec_ == nullptr || !(key == key_) || net.sizes != sizes_)
    capture(key, net, params, x, t, batch, lr, loss_kind, workspace, loss);
  GPULAB_CUDA_CHECK(cudaGraphLaunch(exec_, nullptr));
}

void GraphStep::capture(const Key& key, const Layout& net, std::span<float> params, std::span<const float> x,
                        std::span<const float> t, int batch, float lr, Loss loss_kind, std::span<float> workspace,
                        std::span<float> loss) {
  release();
  if (stream_ == nullptr) GPULAB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  // A cuBLAS handle made inside the capture would fail (it allocates): make it before, even when
  // this is the first cuBLAS call of the program (lesson07_tiny_network --variant cublas_graph).
  if (gemm_ == &cublas_gemm) matmul::cublas_ready();
  // [snippet:graph_capture]
  // Nothing runs while capturing: each launch on stream_ becomes a node of the graph.
  GPULAB_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
  struct Graph {  // destroyed however capture() ends; the instantiated copy lives on in exec_
    cudaGraph_t handle = nullptr;
    ~Graph() {
      if (handle != nullptr) cudaGraphDestroy(handle);
    }
  } graph;
  try {
    layered_step(net, params, x, t, batch, lr, loss_kind, workspace, loss, {gemm_, stream_});
  } catch (...) {
    cudaStreamEndCapture(stream_, &graph.handle);  // ends the capture, so the stream can be used again
    throw;
  }
  GPULAB_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph.handle));
  GPULAB_CUDA_CHECK(cudaGraphInstantiate(&exec_, graph.handle, 0));
  // [/snippet]
  key_ = key;
  sizes_ = net.sizes;
}

}  // namespace gpulab::gpu::mlp
