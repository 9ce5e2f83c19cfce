#pragma once
// The CNN on a device (the GPU, or the emulator: the backend the thread has chosen, as every
// launcher): its layers as kernels (cnn_layers.cu) and a whole Adam step layer by layer
// (cnn_step.cu). Every pointer and span is device memory, laid out as on the CPU (cnn.hpp).
// `stream` (a cudaStream_t; null: the default stream) takes every launch and copy, so that a CUDA
// graph can capture a whole step (cnn_graph.hpp).
#include <cstddef>
#include <span>

#include "cnn/cnn.hpp"

namespace gpulab::cnn {

// ---------------------------------------------------------------- layers (cnn_layers.cu)

// y = ReLU(conv3x3(x, w) + b), padding 1: x batch × channels × side², y batch × filters × side².
void conv3x3_relu(const float* x, const float* w, const float* b, float* y, int batch, int channels, int filters,
                  int side, void* stream = nullptr);
// 2 × 2 max-pool of `planes` side × side planes into side/2 × side/2 ones; `at` gets each output's
// argmax (its index in x; the first of equal values).
void max_pool2(const float* x, float* y, int* at, int planes, int side, void* stream = nullptr);
// y = x · Wᵀ + b (ReLU where `relu`), x batch × in, W out × in.
void linear(const float* x, const float* w, const float* b, float* y, int batch, int in, int out, bool relu,
            void* stream = nullptr);
// Softmax cross-entropy of batch × classes logits against the labels: dlogits = (softmax −
// one-hot) / batch, and *loss = the mean loss.
void softmax_cross_entropy(const float* logits, const int* labels, float* dlogits, float* loss, int batch, int classes,
                           void* stream = nullptr);
// The backward pass of `linear`: dW = dyᵀ · x, db = Σ dy; where dx is not null, dx = dy · W and,
// where `mask` is not null, dx ⊙ (mask > 0) — the ReLU of the layer below, whose output is mask.
void linear_backward(const float* x, const float* w, const float* dy, float* dw, float* db, float* dx,
                     const float* mask, int batch, int in, int out, void* stream = nullptr);
// The backward pass of max_pool2 and of the ReLU before it: each window of dx gets dy at its
// argmax where the pooled value was positive, 0 elsewhere (every element of dx is written).
void max_pool2_relu_backward(const float* dy, const int* at, const float* pooled, float* dx, int planes, int side,
                             void* stream = nullptr);
// The backward pass of conv3x3 (dz: the gradient of its output before the ReLU): dW and db; and
// where dx is not null, dx, the gradient of its input.
void conv3x3_backward(const float* x, const float* w, const float* dz, float* dw, float* db, float* dx, int batch,
                      int channels, int filters, int side, void* stream = nullptr);
// Adam on `count` parameters: m, v updated, params moved; c1 = 1 − β1ᵗ and c2 = 1 − β2ᵗ.
void adam(float* params, const float* grads, float* m, float* v, std::size_t count, float rate, float beta1,
          float beta2, float epsilon, float c1, float c2, void* stream = nullptr);

// ---------------------------------------------------------------- a step (cnn_step.cu)

// The floats and ints a step at this batch needs besides the parameters: activations, their
// gradients, the parameters' gradients, the loss; the pools' argmax.
std::size_t step_floats(const Layout& net, int batch);
std::size_t step_ints(const Layout& net, int batch);

// The forward pass alone (for predictions): where its logits are in `floats` afterwards.
std::span<const float> forward(const Layout& net, std::span<const float> params, std::span<const float> x, int batch,
                               std::span<float> floats, std::span<int> ints);
// One training step, layer by layer: forward, the loss, backward, Adam (step t from 1; m and v
// the moments, each as many floats as params). Afterwards step_loss holds the batch's mean loss
// (before the update) and step_gradients the gradients.
void layered_step(const Layout& net, std::span<float> params, std::span<float> m, std::span<float> v,
                  std::span<const float> x, std::span<const int> labels, int batch, int t, const Adam& adam,
                  std::span<float> floats, std::span<int> ints, void* stream = nullptr);
std::span<const float> step_gradients(const Layout& net, int batch, std::span<const float> floats);
std::span<const float> step_loss(const Layout& net, int batch, std::span<const float> floats);

}  // namespace gpulab::cnn
