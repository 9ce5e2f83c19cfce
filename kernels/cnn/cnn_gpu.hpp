#pragma once
// The CNN on a device (the GPU, or the emulator: the backend the thread has chosen, as every
// launcher): its layers as kernels (cnn_layers.cu) and a whole Adam step layer by layer
// (cnn_step.cu), in FP32 or in mixed precision (cnn_mixed.cu). Every pointer and span is device
// memory, laid out as on the CPU (cnn.hpp). Arrays stored in FP16 are passed as their bit
// patterns (std::uint16_t), as lesson 09's.
// `stream` (a cudaStream_t; null: the default stream) takes every launch and copy, so that a CUDA
// graph can capture a whole step (cnn_graph.hpp).
#include <cstddef>
#include <cstdint>
#include <span>

#include "cnn/cnn.hpp"

namespace gpulab::cnn {

// ---------------------------------------------------------------- layers (cnn_layers.cu)
// Each in FP32 and with FP16 activations (the mixed step's: its weights an FP16 copy, every sum
// in float, the parameters' gradients floats).

// y = ReLU(conv3x3(x, w) + b), padding 1: x batch × channels × side², y batch × filters × side².
void conv3x3_relu(const float* x, const float* w, const float* b, float* y, int batch, int channels, int filters,
                  int side, void* stream = nullptr);
void conv3x3_relu(const float* x, const std::uint16_t* w, const std::uint16_t* b, std::uint16_t* y, int batch,
                  int channels, int filters, int side, void* stream = nullptr);
void conv3x3_relu(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* b, std::uint16_t* y, int batch,
                  int channels, int filters, int side, void* stream = nullptr);
// 2 × 2 max-pool of `planes` side × side planes into side/2 × side/2 ones; `at` gets each output's
// argmax (its index in x; the first of equal values).
void max_pool2(const float* x, float* y, int* at, int planes, int side, void* stream = nullptr);
void max_pool2(const std::uint16_t* x, std::uint16_t* y, int* at, int planes, int side, void* stream = nullptr);
// y = x · Wᵀ + b (ReLU where `relu`), x batch × in, W out × in; `scratch`: linear_scratch floats
// for the GEMM's partial products.
void linear(const float* x, const float* w, const float* b, float* y, float* scratch, int batch, int in, int out,
            bool relu, void* stream = nullptr);
void linear(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* b, std::uint16_t* y, float* scratch,
            int batch, int in, int out, bool relu, void* stream = nullptr);
std::size_t linear_scratch(int batch, int in, int out);
// Softmax cross-entropy of batch × classes logits against the labels: dlogits = (softmax −
// one-hot) / batch, times *scale where scale is not null (the mixed step's loss scale), and
// *loss = the mean loss.
void softmax_cross_entropy(const float* logits, const int* labels, float* dlogits, float* loss, const float* scale,
                           int batch, int classes, void* stream = nullptr);
void softmax_cross_entropy(const std::uint16_t* logits, const int* labels, std::uint16_t* dlogits, float* loss,
                           const float* scale, int batch, int classes, void* stream = nullptr);
// The backward pass of `linear`: dW = dyᵀ · x, db = Σ dy; where dx is not null, dx = dy · W and,
// where `mask` is not null, dx ⊙ (mask > 0) — the ReLU of the layer below, whose output is mask.
void linear_backward(const float* x, const float* w, const float* dy, float* dw, float* db, float* dx,
                     const float* mask, int batch, int in, int out, void* stream = nullptr);
void linear_backward(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* dy, float* dw, float* db,
                     std::uint16_t* dx, const std::uint16_t* mask, int batch, int in, int out, void* stream = nullptr);
// The backward pass of max_pool2 and of the ReLU before it: each window of dx gets dy at its
// argmax where the pooled value was positive, 0 elsewhere (every element of dx is written).
void max_pool2_relu_backward(const float* dy, const int* at, const float* pooled, float* dx, int planes, int side,
                             void* stream = nullptr);
void max_pool2_relu_backward(const std::uint16_t* dy, const int* at, const std::uint16_t* pooled, std::uint16_t* dx,
                             int planes, int side, void* stream = nullptr);
// The backward pass of conv3x3 (dz: the gradient of its output before the ReLU): dW and db; and
// where dx is not null, dx, the gradient of its input. `scratch`: conv_scratch floats for the
// weight gradient's shares of the batch.
void conv3x3_backward(const float* x, const float* w, const float* dz, float* dw, float* db, float* dx, float* scratch,
                      int batch, int channels, int filters, int side, void* stream = nullptr);
void conv3x3_backward(const float* x, const std::uint16_t* w, const std::uint16_t* dz, float* dw, float* db,
                      std::uint16_t* dx, float* scratch, int batch, int channels, int filters, int side,
                      void* stream = nullptr);
void conv3x3_backward(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* dz, float* dw, float* db,
                      std::uint16_t* dx, float* scratch, int batch, int channels, int filters, int side,
                      void* stream = nullptr);
std::size_t conv_scratch(int batch, int side, int channels, int filters);
// The linear layer's epilogue: y = the `splits` partial products added + b, then ReLU where asked
// (rows × cols); and the ReLU's backward pass, g ⊙ (mask > 0), in place.
void add_bias_activation(const float* partial, int splits, const float* b, float* y, int rows, int cols, bool relu,
                         void* stream = nullptr);
void mask_relu(float* g, const float* mask, std::size_t count, void* stream = nullptr);
// The weight gradient's last kernel: the shares' totals in `partial` (10 per filter, channel and
// share: the 9 taps', then the bias's) added in a fixed order into dW and db.
void add_gradient_shares(const float* partial, float* dw, float* db, int channels, int filters, int shares,
                         void* stream = nullptr);

// ---------------------------------------------------------------- implicit GEMMs (cnn_implicit_gemm.cu)
// The convolutions above as implicit GEMMs: the same arguments, and the same results to within the
// order of the sums. FP32 arrays: FP32 products on the CUDA cores; FP16 ones: FP16 products on the
// tensor cores (the first layer's images rounded to FP16 as well), every sum in FP32.
void conv3x3_relu_implicit_gemm(const float* x, const float* w, const float* b, float* y, int batch, int channels,
                                int filters, int side, void* stream = nullptr);
void conv3x3_relu_implicit_gemm(const float* x, const std::uint16_t* w, const std::uint16_t* b, std::uint16_t* y,
                                int batch, int channels, int filters, int side, void* stream = nullptr);
void conv3x3_relu_implicit_gemm(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* b,
                                std::uint16_t* y, int batch, int channels, int filters, int side,
                                void* stream = nullptr);
void conv3x3_backward_implicit_gemm(const float* x, const float* w, const float* dz, float* dw, float* db, float* dx,
                                    float* scratch, int batch, int channels, int filters, int side,
                                    void* stream = nullptr);
void conv3x3_backward_implicit_gemm(const float* x, const std::uint16_t* w, const std::uint16_t* dz, float* dw,
                                    float* db, std::uint16_t* dx, float* scratch, int batch, int channels, int filters,
                                    int side, void* stream = nullptr);
void conv3x3_backward_implicit_gemm(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* dz, float* dw,
                                    float* db, std::uint16_t* dx, float* scratch, int batch, int channels, int filters,
                                    int side, void* stream = nullptr);
// The linear layers' GEMMs on the same tiles: C (m × n) = op(A) · op(B) as mlp::gemm_tiled takes it
// (row-major; A stored k × m where ta, B stored n × k where tb), FP32 products on the CUDA cores or
// FP16 ones on the tensor cores, sums in FP32. `splits` > 1 splits k: C then holds `splits`
// products of m × n, one after the other, for the caller to add (gemm_tiles_splits: enough to
// fill the GPU).
void gemm_tiles(bool ta, bool tb, const float* a, const float* b, float* c, int m, int n, int k, void* stream = nullptr,
                int splits = 1);
void gemm_tiles(bool ta, bool tb, const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k,
                void* stream = nullptr, int splits = 1);
void gemm_tiles(bool ta, bool tb, const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* c, int m, int n, int k,
                void* stream = nullptr, int splits = 1);
int gemm_tiles_splits(int m, int n, int k);
// The linear layers as `linear` and `linear_backward` above, their GEMMs on these tiles (the
// backward pass's weight gradient with k split too, its slices in `scratch`: linear_scratch floats).
void linear_on_tiles(const float* x, const float* w, const float* b, float* y, float* scratch, int batch, int in,
                     int out, bool relu, void* stream = nullptr);
void linear_on_tiles(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* b, std::uint16_t* y,
                     float* scratch, int batch, int in, int out, bool relu, void* stream = nullptr);
void linear_backward_on_tiles(const float* x, const float* w, const float* dy, float* dw, float* db, float* dx,
                              const float* mask, float* scratch, int batch, int in, int out, void* stream = nullptr);
void linear_backward_on_tiles(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* dy, float* dw,
                              float* db, std::uint16_t* dx, const std::uint16_t* mask, float* scratch, int batch,
                              int in, int out, void* stream = nullptr);
// ---------------------------------------------------------------- NVIDIA's libraries (cnn_library.cpp)
// The FP32 layers above from cuDNN (the convolutions) and cuBLAS (the linear layers' GEMMs), for
// the step that compares ours with them (GPU only): the same arguments, but no scratch for the
// convolution's backward pass (cuDNN keeps its own workspace).
void conv3x3_relu_cudnn(const float* x, const float* w, const float* b, float* y, int batch, int channels, int filters,
                        int side, void* stream = nullptr);
void conv3x3_backward_cudnn(const float* x, const float* w, const float* dz, float* dw, float* db, float* dx, int batch,
                            int channels, int filters, int side, void* stream = nullptr);
void linear_cublas(const float* x, const float* w, const float* b, float* y, float* scratch, int batch, int in, int out,
                   bool relu, void* stream = nullptr);
void linear_backward_cublas(const float* x, const float* w, const float* dy, float* dw, float* db, float* dx,
                            const float* mask, int batch, int in, int out, void* stream = nullptr);

// How many shares of the positions the implicit GEMMs' weight gradient cuts (cnn.cpp).
int implicit_gemm_shares(int batch, int side, int channels, int filters);
// What the mixed step adds to Adam: a step whose gradients overflowed (state[0], see below)
// moves nothing; the loss scale is updated; each moved parameter's FP16 copy is written for the
// next step's layers. All null in the FP32 step.
struct MixedAdam {
  std::uint16_t* fp16_copy = nullptr;
  float* scale = nullptr;
  int* state = nullptr;
  LossScaling scaling;
};
// Adam on `count` parameters: m, v updated, params moved; c1 = 1 − β1ᵗ and c2 = 1 − β2ᵗ.
void adam(float* params, const float* grads, float* m, float* v, std::size_t count, float rate, float beta1,
          float beta2, float epsilon, float c1, float c2, const MixedAdam& mixed = {}, void* stream = nullptr);

// ---------------------------------------------------------------- mixed precision (cnn_mixed.cu)

// y = x rounded to FP16: the mixed step's copy of the parameters, made afresh at its step 1 (Adam
// keeps it after).
void to_fp16(const float* x, std::uint16_t* y, std::size_t count, void* stream = nullptr);
// Dynamic loss scaling, as PyTorch's GradScaler: the loss's gradient is multiplied by *scale so
// that the small gradients of the layers below stay out of FP16's underflow; before the optimiser
// the parameters' gradients are divided by it again, and a step whose gradients overflowed (inf
// or NaN) is skipped and the scale halved; after `interval` good steps in a row it doubles (Adam
// does these last two: MixedAdam). state[0]: whether this step overflowed, state[1]: good steps
// since the scale last changed.
void start_loss_scale(float* scale, int* state, const LossScaling& scaling, void* stream = nullptr);
void unscale_gradients(float* grads, std::size_t count, const float* scale, int* state, void* stream = nullptr);

// ---------------------------------------------------------------- a step (cnn_step.cu)

// The floats and ints a step at this batch needs besides the parameters: activations, their
// gradients (an FP16 array in the mixed step takes the first half of its slot), the parameters'
// FP16 copy, their gradients, the loss and the loss scale; the pools' argmax and the scaler's state.
std::size_t step_floats(const Layout& net, int batch);
std::size_t step_ints(const Layout& net, int batch);

// The forward pass alone (for predictions), in FP32: where its logits are in `floats` afterwards.
std::span<const float> forward(const Layout& net, std::span<const float> params, std::span<const float> x, int batch,
                               std::span<float> floats, std::span<int> ints);
// One training step, layer by layer: forward, the loss, backward, Adam (step t from 1; m and v
// the moments, each as many floats as params). Afterwards step_loss holds the batch's mean loss
// (before the update) and step_gradients the gradients.
void layered_step(const Layout& net, std::span<float> params, std::span<float> m, std::span<float> v,
                  std::span<const float> x, std::span<const int> labels, int batch, int t, const Adam& adam,
                  std::span<float> floats, std::span<int> ints, void* stream = nullptr);
// The same step in mixed precision: the parameters (FP32, the master copy) rounded to FP16 for
// the layers, activations and their gradients in FP16, every sum and the parameters' gradients
// in float, the loss scaled (PyTorch's GradScaler defaults; t = 1 starts the scale afresh).
// The first int of the scaler's state (scaler_state_at) says whether it overflowed and moved nothing.
void mixed_step(const Layout& net, std::span<float> params, std::span<float> m, std::span<float> v,
                std::span<const float> x, std::span<const int> labels, int batch, int t, const Adam& adam,
                std::span<float> floats, std::span<int> ints, void* stream = nullptr);
// The FP32 step with its convolutions as implicit GEMMs on the CUDA cores (conv3x3_…_implicit_gemm).
void implicit_gemm_step(const Layout& net, std::span<float> params, std::span<float> m, std::span<float> v,
                        std::span<const float> x, std::span<const int> labels, int batch, int t, const Adam& adam,
                        std::span<float> floats, std::span<int> ints, void* stream = nullptr);
// The mixed step with its convolutions as implicit GEMMs on the tensor cores (conv3x3_…_implicit_gemm).
void tensor_core_step(const Layout& net, std::span<float> params, std::span<float> m, std::span<float> v,
                      std::span<const float> x, std::span<const int> labels, int batch, int t, const Adam& adam,
                      std::span<float> floats, std::span<int> ints, void* stream = nullptr);
// The FP32 step with cuDNN's convolutions and cuBLAS's GEMMs in place of ours (GPU only).
void library_step(const Layout& net, std::span<float> params, std::span<float> m, std::span<float> v,
                  std::span<const float> x, std::span<const int> labels, int batch, int t, const Adam& adam,
                  std::span<float> floats, std::span<int> ints, void* stream = nullptr);
// Any of the steps, as a value.
using StepFunction = void (*)(const Layout& net, std::span<float> params, std::span<float> m, std::span<float> v,
                              std::span<const float> x, std::span<const int> labels, int batch, int t, const Adam& adam,
                              std::span<float> floats, std::span<int> ints, void* stream);
std::span<const float> step_gradients(const Layout& net, int batch, std::span<const float> floats);
std::span<const float> step_loss(const Layout& net, int batch, std::span<const float> floats);
// Where the loss, the loss scale, the scaler's state and the pools' argmax (at1, then at2) are in
// the workspaces. The loss scale, the scaler's state and the mixed step's FP16 copy of the
// parameters come first, at the same place at any batch, as they live from step to step.
std::size_t loss_at(const Layout& net, int batch);
std::size_t scale_at();
std::size_t scaler_state_at();
std::size_t argmax_at();
// Where the pools' outputs are in the floats (an FP16 step's as bit patterns, in the first half of their slots).
std::size_t pooled1_at(const Layout& net, int batch);
std::size_t pooled2_at(const Layout& net, int batch);

}  // namespace gpulab::cnn
