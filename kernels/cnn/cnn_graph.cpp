// Lesson 16's step as a CUDA graph (GPU builds only): see cnn_graph.hpp.
#include "cnn/cnn_graph.hpp"

#include <cuda_runtime.h>

#include "cnn/cnn_gpu.hpp"
#include "common/cuda_check.hpp"
#include "common/cuda_handles.hpp"

namespace gpulab::cnn {

namespace {

class CudaGraphStep final : public GraphStep {
 public:
  explicit CudaGraphStep(StepFunction step) : step_(step) {}
  CudaGraphStep(const CudaGraphStep&) = delete;
  CudaGraphStep& operator=(const CudaGraphStep&) = delete;
  ~CudaGraphStep() override {
    exec_.reset();
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  void run(const Layout& net, std::span<float> params, std::span<float> m, std::span<float> v, std::span<const float> x,
           std::span<const int> labels, int batch, int t, const Adam& adam, std::span<float> floats,
           std::span<int> ints) override {
    const Key key{{params.data(), m.data(), v.data(), x.data(), labels.data(), floats.data(), ints.data()},
                  batch,
                  t,
                  {net.side, net.channels, net.c1, net.c2, net.hidden, net.classes}};
    if (!exec_ || !(key == key_)) {
      exec_.reset();
      if (stream_ == nullptr) GPULAB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
      exec_ =
          capture_graph(stream_, [&] { step_(net, params, m, v, x, labels, batch, t, adam, floats, ints, stream_); });
      key_ = key;
    }
    exec_.launch(nullptr);
  }

 private:
  struct Key {
    const void* pointers[7];
    int batch, t;
    int sizes[6];
    bool operator==(const Key&) const = default;
  };
  StepFunction step_;
  cudaStream_t stream_ = nullptr;  // the capture's (the legacy default stream cannot be captured)
  GraphExec exec_;
  Key key_{};
};

}  // namespace

std::unique_ptr<GraphStep> graph_step(StepFunction step) { return std::make_unique<CudaGraphStep>(step); }

}  // namespace gpulab::cnn
