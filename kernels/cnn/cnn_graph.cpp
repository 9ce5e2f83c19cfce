// Lesson 16's step as a CUDA graph (GPU builds only): see cnn_graph.hpp.
#include "cnn/cnn_graph.hpp"

#include <cuda_runtime.h>

#include "cnn/cnn_gpu.hpp"
#include "common/cuda_check.hpp"

namespace gpulab::cnn {

namespace {

class CudaGraphStep final : public GraphStep {
 public:
  explicit CudaGraphStep(StepFunction step) : step_(step) {}
  CudaGraphStep(const CudaGraphStep&) = delete;
  CudaGraphStep& operator=(const CudaGraphStep&) = delete;
  ~CudaGraphStep() override {
    release();
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  void run(const Layout& net, std::span<float> params, std::span<float> m, std::span<float> v, std::span<const float> x,
           std::span<const int> labels, int batch, int t, const Adam& adam, std::span<float> floats,
           std::span<int> ints) override {
    const Key key{{params.data(), m.data(), v.data(), x.data(), labels.data(), floats.data(), ints.data()},
                  batch,
                  t,
                  {net.side, net.channels, net.c1, net.c2, net.hidden, net.classes}};
    if (exec_ == nullptr || !(key == key_)) {
      release();
      if (stream_ == nullptr) GPULAB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
      // Nothing runs while capturing: each launch on stream_ becomes a node of the graph.
      GPULAB_CUDA_CHECK(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
      cudaGraph_t graph = nullptr;
      try {
        step_(net, params, m, v, x, labels, batch, t, adam, floats, ints, stream_);
      } catch (...) {
        cudaStreamEndCapture(stream_, &graph);  // leave the stream usable; the error goes on
        if (graph != nullptr) cudaGraphDestroy(graph);
        throw;
      }
      GPULAB_CUDA_CHECK(cudaStreamEndCapture(stream_, &graph));
      const cudaError_t made = cudaGraphInstantiate(&exec_, graph, 0);
      cudaGraphDestroy(graph);
      GPULAB_CUDA_CHECK(made);
      key_ = key;
    }
    GPULAB_CUDA_CHECK(cudaGraphLaunch(exec_, nullptr));
  }

 private:
  struct Key {
    const void* pointers[7];
    int batch, t;
    int sizes[6];
    bool operator==(const Key&) const = default;
  };
  void release() {
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    exec_ = nullptr;
  }

  StepFunction step_;
  cudaStream_t stream_ = nullptr;  // the capture's (the legacy default stream cannot be captured)
  cudaGraphExec_t exec_ = nullptr;
  Key key_{};
};

}  // namespace

std::unique_ptr<GraphStep> graph_step(StepFunction step) { return std::make_unique<CudaGraphStep>(step); }

}  // namespace gpulab::cnn
