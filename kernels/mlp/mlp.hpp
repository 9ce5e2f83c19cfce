#pragma once
// A small multilayer perceptron: layers y = σ(W·x + b), every layer with the sigmoid, trained
// with plain SGD on mean squared error or binary cross-entropy. The network's parameters live in
// one flat array (layer by layer: W of out × in, row-major, then b), so a training step moves
// one buffer to and from a GPU, and the CPU, the GPU and the emulator share one layout.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpulab::mlp {

enum class Loss { mse, bce };

// Layer widths, input first: {2, 16, 1} is 2 inputs, 16 hidden units, 1 output.
struct Layout {
  std::vector<int> sizes;

  int layers() const { return static_cast<int>(sizes.size()) - 1; }
  int inputs() const { return sizes.front(); }
  int outputs() const { return sizes.back(); }
  int widest() const {  // the most units of any layer, input included
    int w = 0;
    for (int s : sizes) w = s > w ? s : w;
    return w;
  }
  // Where layer l's weights (sizes[l+1] × sizes[l]) and biases (sizes[l+1]) start in the flat array.
  std::size_t weight_offset(int l) const;
  std::size_t bias_offset(int l) const { return weight_offset(l) + weights(l); }
  std::size_t weights(int l) const {
    return static_cast<std::size_t>(sizes[static_cast<std::size_t>(l) + 1]) * sizes[static_cast<std::size_t>(l)];
  }
  std::size_t parameters() const { return weight_offset(layers()); }
  // Multiply-adds of one forward pass for one example.
  double macs() const;
};

// How layered_step runs, where the defaults are not wanted: `gemm` replaces the lesson's GEMM
// kernel (row-major C (m × n) = op(A) · op(B) on device memory, op(X) = Xᵀ where the flag says:
// cuBLAS), and `stream` (a cudaStream_t; null: the default stream) takes every launch, so a CUDA
// graph can capture the step.
using GemmFunction = void (*)(bool ta, bool tb, const float* a, const float* b, float* c, int m, int n, int k,
                              void* stream);
// `update` false stops layered_step before the SGD update, leaving the gradients in the workspace
// (step_gradients): lesson 10 sums them over GPUs first. The two hooks, where set, are called on
// the host while the step is queued: once the loss is queued, then once each layer's gradients
// are, from the last layer down. Lesson 10 starts averaging a layer's gradients over the GPUs
// there, on a stream of its own, while this stream goes on with the layers below.
struct StepOptions {
  GemmFunction gemm = nullptr;
  void* stream = nullptr;
  bool update = true;
  std::function<void()> loss_queued = {};
  std::function<void(int layer)> gradients_queued = {};
};

// Throws std::invalid_argument unless there are 1 to 8 layers of 1 to 8192 units.
void check_layout(const Layout& layout);
// Throws std::invalid_argument unless the layout is valid, params hold its parameters and x at
// least batch × inputs floats (what every step checks first).
inline void check_step_buffers(const Layout& net, std::span<const float> params, std::span<const float> x, int batch) {
  check_layout(net);
  if (batch < 0 || params.size() != net.parameters() ||
      x.size() < static_cast<std::size_t>(batch) * static_cast<std::size_t>(net.inputs())) {
    throw std::invalid_argument("mlp: params must hold " + std::to_string(net.parameters()) +
                                " floats and x batch × inputs");
  }
}
// "2x16x1"
std::string to_string(const Layout& layout);

// Uniform in ±sqrt(6 / (in + out)) (Glorot), biases zero: a function of the seed alone.
std::vector<float> initial_parameters(const Layout& layout, std::uint64_t seed);

}  // namespace gpulab::mlp

// The GPU launchers: spans of device memory, queued on the device the thread chose (common/backend.hpp).
namespace gpulab::mlp {

// memory: params in the flat layout of Layout, x batch × inputs, t batch × outputs.

// The scratch one step needs (activations, two delta buffers, the gradients), in floats.
std::size_t step_workspace(const Layout& net, int batch);

// [snippet:layered_step_api]
// One SGD step, layer by layer, one kernel per operation: forward (GEMM, then bias + sigmoid),
// the loss and the output layer's delta, backward (dW and db, then the previous layer's delta),
// and the update. `loss` (one float) receives the batch's mean loss before the update.
void layered_step(const Layout& net, std::span<float> params, std::span<const float> x, std::span<const float> t,
                  int batch, float lr, Loss loss_kind, std::span<float> workspace, std::span<float> loss,
                  const gpulab::mlp::StepOptions& options = {});
// [/snippet]

// Where layered_step leaves the gradients in its workspace (the parameters' layout).
std::span<float> step_gradients(const Layout& net, int batch, std::span<float> workspace);

// layered_step's pieces, which lesson 10 spreads over GPUs (all on options.stream):
// output = σ(input · Wᵀ + b), batch × out from batch × in;
void forward_layer(const float* w, const float* b, const float* input, float* output, int batch, int in, int out,
                   const gpulab::mlp::StepOptions& options = {});
// the mean loss into *loss (zeroed first) and dL/dZ of the output layer, `count` = batch × outputs;
void output_delta(const float* y, const float* t, float* delta, float* loss, int count, Loss loss_kind,
                  const gpulab::mlp::StepOptions& options = {});
// dW = Δᵀ · input, db = Δ's column sums and, where `delta_in` is not null, the previous layer's
// delta (Δ · W) ⊙ input (1 − input);
void backward_layer(const float* delta, const float* input, const float* w, float* dw, float* db, float* delta_in,
                    int batch, int in, int out, const gpulab::mlp::StepOptions& options = {});
// The lesson's GEMM on its own (lesson 16's linear layers use it): C (m × n) = op(A) · op(B),
// row-major, op(X) = Xᵀ where ta or tb says (A stored k × m, B n × k), 16 × 16 tiles; and the
// column sums of a rows × cols matrix. `stream`: a cudaStream_t, null for the default stream.
// `splits` > 1 splits k: C then holds `splits` products of m × n, one after the other, each over
// its slice of k, for the caller to add; gemm_tiled_splits says how many fill the GPU where C's
// tiles alone are too few blocks (slices of 256 and more; 1 where C has tiles enough).
void gemm_tiled(bool ta, bool tb, const float* a, const float* b, float* c, int m, int n, int k, void* stream = nullptr,
                int splits = 1);
void sum_columns(const float* x, float* sums, int rows, int cols, void* stream = nullptr);
// The same on matrices stored in FP16 (bit patterns, as lesson 09's), the sums in float: lesson
// 16's mixed-precision step. C in FP16 or in floats.
void gemm_tiled(bool ta, bool tb, const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* c, int m, int n, int k,
                void* stream = nullptr);
void gemm_tiled(bool ta, bool tb, const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k,
                void* stream = nullptr, int splits = 1);
void sum_columns(const std::uint16_t* x, float* sums, int rows, int cols, void* stream = nullptr);
int gemm_tiled_splits(int m, int n, int k);
// params −= lr · grads.
void sgd(float* params, const float* grads, std::size_t count, float lr, const gpulab::mlp::StepOptions& options = {});

// The whole step in one kernel and one block: parameters, the batch's activations and deltas in
// shared memory (fused_fits says whether they fit in 48 KB), every layer in turn between barriers.
// `threads`: the block's size, a multiple of 32 up to 512 (the emulator trains faster with fewer).
bool fused_fits(const Layout& net, int batch);
void fused_step(const Layout& net, std::span<float> params, std::span<const float> x, std::span<const float> t,
                int batch, float lr, Loss loss_kind, std::span<float> loss, int threads = 512);

// The whole step in one kernel whose widths are compile-time constants, so that each thread keeps
// its examples' activations and its share of the gradient in registers. Built for a few tiny
// two-layer shapes (fused_registers_fits: 2x8x1, 2x16x1), any batch.
bool fused_registers_fits(const Layout& net);
void fused_registers_step(const Layout& net, std::span<float> params, std::span<const float> x,
                          std::span<const float> t, int batch, float lr, Loss loss_kind, std::span<float> loss);

}  // namespace gpulab::mlp
