#pragma once
// A small multilayer perceptron: layers y = σ(W·x + b), every layer with the sigmoid, trained
// with plain SGD on mean squared error or binary cross-entropy. The network's parameters live in
// one flat array (layer by layer: W of out × in, row-major, then b), so a training step moves
// one buffer to and from a GPU, and the CPU, the GPU and the emulator share one layout.
#include <cstddef>
#include <cstdint>
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
// `bias_sigmoid` (A = σ(Z + b) in place) and `column_sums` (db = Δ's column sums) replace the
// step's own kernels for those two operations: lesson 07's exercise plugs the learner's in.
using LayerFunction = void (*)(float* z, const float* bias, int rows, int cols, void* stream);
using ColumnSumsFunction = void (*)(const float* delta, float* db, int rows, int cols, void* stream);
// `update` false stops layered_step before the SGD update, leaving the gradients in the workspace
// (step_gradients): lesson 10 sums them over GPUs first.
struct StepOptions {
  GemmFunction gemm = nullptr;
  void* stream = nullptr;
  LayerFunction bias_sigmoid = nullptr;
  ColumnSumsFunction column_sums = nullptr;
  bool update = true;
};

// Throws std::invalid_argument unless there are 1 to 8 layers of 1 to 8192 units.
void check_layout(const Layout& layout);
// "2x16x1"
std::string to_string(const Layout& layout);

// Uniform in ±sqrt(6 / (in + out)) (Glorot), biases zero: a function of the seed alone.
std::vector<float> initial_parameters(const Layout& layout, std::uint64_t seed);

}  // namespace gpulab::mlp

// The GPU launchers take spans of device memory; mlp.cu builds for the GPU and the emulator.
namespace gpulab::gpu::mlp {
using gpulab::mlp::Layout;
using gpulab::mlp::Loss;
#include "mlp/mlp_launchers.inc"
}  // namespace gpulab::gpu::mlp
namespace gpulab::emulated::mlp {
using gpulab::mlp::Layout;
using gpulab::mlp::Loss;
#include "mlp/mlp_launchers.inc"
}  // namespace gpulab::emulated::mlp
