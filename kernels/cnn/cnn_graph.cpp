// Lesson 16's step as a CUDA graph (GPU builds only): see cnn_graph.hpp.
#include "cnn/cnn_graph.hpp"

#include <cuda_runtime.h>

#include <optional>

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
  void run(const Layout& net, std::span<float> params, std::span<float> m, std::span<float> v, std::span<const float> x,
           std::span<const int> labels, int batch, int t, const Adam& adam, std::span<float> floats,
           std::span<int> ints) override {
    const Key key{{params.data(), m.data(), v.data(), x.data(), labels.data(), floats.data(), ints.data()},
                  batch,
                  t,
                  {net.side, net.channels, net.c1, net.c2, net.hidden, net.classes}};
    if (!exec_ || !(key == key_)) {
      exec_.reset();
      if (!stream_) stream_.emplace();
      const cudaStream_t stream = stream_->get();
      exec_ = capture_graph(stream, [&] { step_(net, params, m, v, x, labels, batch, t, adam, floats, ints, stream); });
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
  std::optional<Stream> stream_;  // the capture's (the legacy default stream cannot be captured)
  GraphExec exec_;                // (destroyed before the stream it was captured on)
  Key key_{};
};

}  // namespace

std::unique_ptr<GraphStep> graph_step(StepFunction step) { return std::make_unique<CudaGraphStep>(step); }

}  // namespace gpulab::cnn
