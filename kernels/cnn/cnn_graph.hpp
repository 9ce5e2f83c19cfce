#pragma once
// Lesson 16's step as one CUDA graph (GPU builds only; cnn_graph.cpp). Apart from cnn_gpu.hpp,
// which the kernel files include: they build for the emulator too, and need no <memory>.
#include <memory>
#include <span>

#include "cnn/cnn.hpp"
#include "cnn/cnn_gpu.hpp"

namespace gpulab::cnn {

// A step (layered_step, or mixed_step) captured in a CUDA graph the first time it runs on these
// buffers, batch and step number, and replayed after: one launch instead of 24 (mixed: 27 at
// step 1, 25 after), the kernels back to back without the host issuing each. A graph holds its
// kernels' arguments, so other buffers, another batch or another step t (Adam's bias corrections
// are the update kernel's arguments) mean a new capture.
class GraphStep {
 public:
  virtual ~GraphStep() = default;
  // As the step; the graph runs on the default stream, in order with the caller's copies.
  virtual void run(const Layout& net, std::span<float> params, std::span<float> m, std::span<float> v,
                   std::span<const float> x, std::span<const int> labels, int batch, int t, const Adam& adam,
                   std::span<float> floats, std::span<int> ints) = 0;
};
// GPU builds only (cnn_graph.cpp); elsewhere it says it needs CUDA graphs.
std::unique_ptr<GraphStep> graph_step(StepFunction step = layered_step);

}  // namespace gpulab::cnn
