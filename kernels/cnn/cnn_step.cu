// A training step of the CNN on the GPU, layer by layer: the CPU's step (cnn_cpu.hpp), each of
// its operations one launch of cnn_layers.cu, in the same order, on one stream — in FP32, or in
// mixed precision (activations in FP16, cnn_mixed.cu's loss scaling around the optimiser).
#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cnn/cnn_gpu.hpp"
#include "common/launch.cuh"

namespace gpulab::cnn {

namespace {

// Where each array of a step is in its workspaces. First what lives from step to step, at the
// same place whatever the batch: the loss scale and the parameters as the layers read them (the
// mixed step's FP16 copy, which Adam writes for the next step; the FP32 step reads the master
// copy itself); the scaler's state. Then the forward pass's outputs, the gradients flowing back
// (stored as T: float, or FP16 bit patterns), scratch for partial sums, the parameters' gradients
// and the loss; the pools' argmax.
template <typename T>
struct Scratch {
  float* scale;
  T* weights;
  T *r1, *p1, *r2, *p2, *h, *out;
  T *d_out, *d_h, *d_p2, *d_r2, *d_p1, *d_r1;
  float *scratch, *grads, *loss;
  int *scaler, *at1, *at2;
};

// The float arrays of Scratch, in their order in the workspace.
enum Slot : std::size_t {
  kScale,
  kWeights,
  kR1,
  kP1,
  kR2,
  kP2,
  kH,
  kOut,
  kDOut,
  kDH,
  kDP2,
  kDR2,
  kDP1,
  kDR1,
  kScratch,
  kGrads,
  kLoss,
  kFloatArrays
};

// The GEMMs' partial products and the weight gradients' shares: the most any layer needs.
std::size_t scratch_floats(const Layout& net, int batch) {
  return std::max({linear_scratch(batch, net.features(), net.hidden), linear_scratch(batch, net.hidden, net.classes),
                   conv_scratch(batch, net.side, net.channels, net.c1),
                   conv_scratch(batch, net.side1(), net.c1, net.c2)});
}

// Each array starts on a 128-byte boundary (its slot rounded up to 32 floats): the libraries'
// kernels (cuDNN's) load vectors and fail on an array that is only a float's width aligned.
constexpr std::size_t kSlotFloats = 32;

// Where each array of Scratch starts in the floats (by Slot), and the floats they take in all.
std::size_t float_offsets(const Layout& net, int batch, std::size_t* offsets) {
  const std::size_t b = static_cast<std::size_t>(batch);
  const std::size_t conv1 = b * net.c1 * net.side * net.side, pool1 = b * net.c1 * net.side1() * net.side1();
  const std::size_t conv2 = b * net.c2 * net.side1() * net.side1(), pool2 = b * net.features();
  const std::size_t hidden = b * net.hidden, out = b * net.classes, params = net.parameters();
  const std::size_t sizes[kFloatArrays] = {1,      params, conv1, pool1, conv2,
                                           pool2,  hidden, out,   out,   hidden,
                                           pool2,  conv2,  pool1, conv1, scratch_floats(net, batch),
                                           params, 1};
  std::size_t total = 0;
  for (std::size_t i = 0; i < kFloatArrays; ++i) {
    if (offsets != nullptr) offsets[i] = total;
    total += (sizes[i] + kSlotFloats - 1) / kSlotFloats * kSlotFloats;
  }
  return total;
}

std::size_t float_offset(const Layout& net, int batch, Slot slot) {
  std::size_t offsets[kFloatArrays];
  float_offsets(net, batch, offsets);
  return offsets[slot];
}

constexpr std::size_t kScalerInts = 2;

template <typename T>
Scratch<T> scratch_of(const Layout& net, int batch, std::span<float> floats, std::span<int> ints) {
  check_layout(net);
  if (batch < 0 || floats.size() < step_floats(net, batch) || ints.size() < step_ints(net, batch)) {
    throw std::invalid_argument("cnn: a step at batch " + std::to_string(batch) + " needs " +
                                std::to_string(step_floats(net, batch)) + " floats and " +
                                std::to_string(step_ints(net, batch)) + " ints of workspace");
  }
  std::size_t offsets[kFloatArrays];
  float_offsets(net, batch, offsets);
  const auto at = [&](Slot slot) { return floats.data() + offsets[slot]; };
  const auto stored = [&](Slot slot) { return reinterpret_cast<T*>(at(slot)); };  // FP16: the first half of its slot
  Scratch<T> s{};
  s.scale = at(kScale);
  s.weights = stored(kWeights);
  s.r1 = stored(kR1);
  s.p1 = stored(kP1);
  s.r2 = stored(kR2);
  s.p2 = stored(kP2);
  s.h = stored(kH);
  s.out = stored(kOut);
  s.d_out = stored(kDOut);
  s.d_h = stored(kDH);
  s.d_p2 = stored(kDP2);
  s.d_r2 = stored(kDR2);
  s.d_p1 = stored(kDP1);
  s.d_r1 = stored(kDR1);
  s.scratch = at(kScratch);
  s.grads = at(kGrads);
  s.loss = at(kLoss);
  s.scaler = ints.data();
  s.at1 = ints.data() + kScalerInts;
  s.at2 = s.at1 + static_cast<std::size_t>(batch) * net.c1 * net.side1() * net.side1();
  return s;
}

void check_inputs(const Layout& net, std::span<const float> params, std::span<const float> x, int batch) {
  if (params.size() != net.parameters() || x.size() < static_cast<std::size_t>(batch) * net.image_size()) {
    throw std::invalid_argument("cnn: params must hold " + std::to_string(net.parameters()) +
                                " floats and x batch × channels × side² floats");
  }
}

// Whose layers the step runs: ours (a thread per output on the CUDA cores, or every layer's
// product on the implicit GEMMs' tiles: the convolutions as implicit GEMMs, the linear layers'
// GEMMs — on the CUDA cores in FP32, on the tensor cores in FP16), or, FP32 only, NVIDIA's
// libraries' (cuDNN's convolutions, cuBLAS's GEMMs) for comparison. Pools, loss and Adam are ours
// in every step.
enum class Layers { ours, implicit_gemm, libraries };

template <Layers kLayers, typename In, typename T>
void convolution(const In* x, const T* w, const T* b, T* y, int batch, int channels, int filters, int side,
                 void* stream) {
  if constexpr (kLayers == Layers::implicit_gemm) {
    conv3x3_relu_implicit_gemm(x, w, b, y, batch, channels, filters, side, stream);
  } else if constexpr (kLayers == Layers::libraries) {
    conv3x3_relu_cudnn(x, w, b, y, batch, channels, filters, side, stream);
  } else {
    conv3x3_relu(x, w, b, y, batch, channels, filters, side, stream);
  }
}

template <Layers kLayers, typename In, typename T>
void convolution_backward(const In* x, const T* w, const T* dz, float* dw, float* db, T* dx, float* scratch, int batch,
                          int channels, int filters, int side, void* stream) {
  if constexpr (kLayers == Layers::implicit_gemm) {
    conv3x3_backward_implicit_gemm(x, w, dz, dw, db, dx, scratch, batch, channels, filters, side, stream);
  } else if constexpr (kLayers == Layers::libraries) {
    conv3x3_backward_cudnn(x, w, dz, dw, db, dx, batch, channels, filters, side, stream);
  } else {
    conv3x3_backward(x, w, dz, dw, db, dx, scratch, batch, channels, filters, side, stream);
  }
}

template <Layers kLayers, typename T>
void dense(const T* x, const T* w, const T* b, T* y, float* scratch, int batch, int in, int out, bool relu,
           void* stream) {
  if constexpr (kLayers == Layers::libraries) {
    linear_cublas(x, w, b, y, scratch, batch, in, out, relu, stream);
  } else if constexpr (kLayers == Layers::implicit_gemm) {
    linear_on_tiles(x, w, b, y, scratch, batch, in, out, relu, stream);
  } else {
    linear(x, w, b, y, scratch, batch, in, out, relu, stream);
  }
}

template <Layers kLayers, typename T>
void dense_backward(const T* x, const T* w, const T* dy, float* dw, float* db, T* dx, const T* mask, float* scratch,
                    int batch, int in, int out, void* stream) {
  if constexpr (kLayers == Layers::libraries) {
    linear_backward_cublas(x, w, dy, dw, db, dx, mask, batch, in, out, stream);
  } else if constexpr (kLayers == Layers::implicit_gemm) {
    linear_backward_on_tiles(x, w, dy, dw, db, dx, mask, scratch, batch, in, out, stream);
  } else {
    linear_backward(x, w, dy, dw, db, dx, mask, batch, in, out, stream);
  }
}

// p: the parameters as the layers read them (the FP32 ones, or their FP16 copy).
template <typename T, Layers kLayers = Layers::ours>
void forward_pass(const Layout& net, const T* p, const float* x, int batch, const Scratch<T>& s, void* stream) {
  using L = Layout;
  convolution<kLayers>(x, p + net.offset(L::w1), p + net.offset(L::b1), s.r1, batch, net.channels, net.c1, net.side,
                       stream);
  max_pool2(s.r1, s.p1, s.at1, batch * net.c1, net.side, stream);
  convolution<kLayers>(s.p1, p + net.offset(L::w2), p + net.offset(L::b2), s.r2, batch, net.c1, net.c2, net.side1(),
                       stream);
  max_pool2(s.r2, s.p2, s.at2, batch * net.c2, net.side1(), stream);
  dense<kLayers>(s.p2, p + net.offset(L::w3), p + net.offset(L::b3), s.h, s.scratch, batch, net.features(), net.hidden,
                 true, stream);
  dense<kLayers>(s.h, p + net.offset(L::w4), p + net.offset(L::b4), s.out, s.scratch, batch, net.hidden, net.classes,
                 false, stream);
}

// [snippet:cnn_layered_step]
// The step in FP32 (T = float) or in mixed precision (T = std::uint16_t, FP16 bit patterns), with
// our layers or (Layers) the libraries'.
template <typename T, Layers kLayers = Layers::ours>
void step(const Layout& net, std::span<float> params, std::span<float> m, std::span<float> v, std::span<const float> x,
          std::span<const int> labels, int batch, int t, const Adam& adam, std::span<float> floats, std::span<int> ints,
          void* stream) {
  constexpr bool mixed = std::is_same_v<T, std::uint16_t>;
  const Scratch<T> s = scratch_of<T>(net, batch, floats, ints);
  check_inputs(net, params, x, batch);
  if (m.size() != params.size() || v.size() != params.size() || labels.size() < static_cast<std::size_t>(batch) ||
      t < 1) {
    throw std::invalid_argument("cnn: m and v as many floats as params, a label per image, step t from 1");
  }
  using L = Layout;
  float* g = s.grads;
  const float* scale = nullptr;  // the loss scale: none in FP32
  const T* p = nullptr;          // the parameters the layers read
  MixedAdam extras;              // what Adam does besides: nothing in FP32
  if constexpr (mixed) {
    if (t == 1) {  // the scale and the FP16 copy afresh; later, Adam keeps the copy
      start_loss_scale(s.scale, s.scaler, LossScaling{}, stream);
      to_fp16(params.data(), s.weights, params.size(), stream);
    }
    scale = s.scale;
    p = s.weights;
    extras = {s.weights, s.scale, s.scaler, LossScaling{}};
  } else {
    p = params.data();
  }
  if (batch == 0) {  // nothing to learn: the loss and the gradients are 0, and nothing moves
    softmax_cross_entropy(s.out, labels.data(), s.d_out, s.loss, scale, 0, net.classes, stream);
    GPULAB_CUDA_CHECK(cudaMemsetAsync(g, 0, net.parameters() * sizeof(float), static_cast<cudaStream_t>(stream)));
    return;
  }
  forward_pass<T, kLayers>(net, p, x.data(), batch, s, stream);
  softmax_cross_entropy(s.out, labels.data(), s.d_out, s.loss, scale, batch, net.classes, stream);
  // Backward, from the loss to the first layer; each ReLU's mask is its own output.
  dense_backward<kLayers>(s.h, p + net.offset(L::w4), s.d_out, g + net.offset(L::w4), g + net.offset(L::b4), s.d_h, s.h,
                          s.scratch, batch, net.hidden, net.classes, stream);
  dense_backward<kLayers>(s.p2, p + net.offset(L::w3), s.d_h, g + net.offset(L::w3), g + net.offset(L::b3), s.d_p2,
                          static_cast<const T*>(nullptr), s.scratch, batch, net.features(), net.hidden, stream);
  max_pool2_relu_backward(s.d_p2, s.at2, s.p2, s.d_r2, batch * net.c2, net.side1(), stream);
  convolution_backward<kLayers>(s.p1, p + net.offset(L::w2), s.d_r2, g + net.offset(L::w2), g + net.offset(L::b2),
                                s.d_p1, s.scratch, batch, net.c1, net.c2, net.side1(), stream);
  max_pool2_relu_backward(s.d_p1, s.at1, s.p1, s.d_r1, batch * net.c1, net.side, stream);
  convolution_backward<kLayers>(x.data(), p + net.offset(L::w1), s.d_r1, g + net.offset(L::w1), g + net.offset(L::b1),
                                static_cast<T*>(nullptr), s.scratch, batch, net.channels, net.c1, net.side, stream);
  // Mixed: the gradients back to their true size; Adam skips the step if one overflowed.
  if constexpr (mixed) unscale_gradients(g, params.size(), s.scale, s.scaler, stream);
  // Adam, its bias corrections computed once here in double.
  const double c1 = 1 - std::pow(adam.beta1, t), c2 = 1 - std::pow(adam.beta2, t);
  cnn::adam(params.data(), g, m.data(), v.data(), params.size(), static_cast<float>(adam.rate),
            static_cast<float>(adam.beta1), static_cast<float>(adam.beta2), static_cast<float>(adam.epsilon),
            static_cast<float>(c1), static_cast<float>(c2), extras, stream);
}
// [/snippet]

}  // namespace

std::size_t step_floats(const Layout& net, int batch) { return float_offsets(net, batch, nullptr); }

std::size_t step_ints(const Layout& net, int batch) {
  return kScalerInts + static_cast<std::size_t>(batch) * (static_cast<std::size_t>(net.c1) * net.side1() * net.side1() +
                                                          static_cast<std::size_t>(net.features()));
}

std::span<const float> forward(const Layout& net, std::span<const float> params, std::span<const float> x, int batch,
                               std::span<float> floats, std::span<int> ints) {
  const Scratch<float> s = scratch_of<float>(net, batch, floats, ints);
  check_inputs(net, params, x, batch);
  if (batch > 0) forward_pass(net, params.data(), x.data(), batch, s, nullptr);
  return {s.out, static_cast<std::size_t>(batch) * net.classes};
}

void layered_step(const Layout& net, std::span<float> params, std::span<float> m, std::span<float> v,
                  std::span<const float> x, std::span<const int> labels, int batch, int t, const Adam& adam,
                  std::span<float> floats, std::span<int> ints, void* stream) {
  step<float>(net, params, m, v, x, labels, batch, t, adam, floats, ints, stream);
}

void mixed_step(const Layout& net, std::span<float> params, std::span<float> m, std::span<float> v,
                std::span<const float> x, std::span<const int> labels, int batch, int t, const Adam& adam,
                std::span<float> floats, std::span<int> ints, void* stream) {
  step<std::uint16_t>(net, params, m, v, x, labels, batch, t, adam, floats, ints, stream);
}

void implicit_gemm_step(const Layout& net, std::span<float> params, std::span<float> m, std::span<float> v,
                        std::span<const float> x, std::span<const int> labels, int batch, int t, const Adam& adam,
                        std::span<float> floats, std::span<int> ints, void* stream) {
  step<float, Layers::implicit_gemm>(net, params, m, v, x, labels, batch, t, adam, floats, ints, stream);
}

void tensor_core_step(const Layout& net, std::span<float> params, std::span<float> m, std::span<float> v,
                      std::span<const float> x, std::span<const int> labels, int batch, int t, const Adam& adam,
                      std::span<float> floats, std::span<int> ints, void* stream) {
  step<std::uint16_t, Layers::implicit_gemm>(net, params, m, v, x, labels, batch, t, adam, floats, ints, stream);
}

void library_step(const Layout& net, std::span<float> params, std::span<float> m, std::span<float> v,
                  std::span<const float> x, std::span<const int> labels, int batch, int t, const Adam& adam,
                  std::span<float> floats, std::span<int> ints, void* stream) {
  step<float, Layers::libraries>(net, params, m, v, x, labels, batch, t, adam, floats, ints, stream);
}

std::size_t loss_at(const Layout& net, int batch) { return float_offset(net, batch, kLoss); }
std::size_t scale_at() { return 0; }
std::size_t scaler_state_at() { return 0; }
std::size_t argmax_at() { return kScalerInts; }
std::size_t pooled1_at(const Layout& net, int batch) { return float_offset(net, batch, kP1); }
std::size_t pooled2_at(const Layout& net, int batch) { return float_offset(net, batch, kP2); }

std::span<const float> step_gradients(const Layout& net, int batch, std::span<const float> floats) {
  return floats.subspan(float_offset(net, batch, kGrads), net.parameters());
}

std::span<const float> step_loss(const Layout& net, int batch, std::span<const float> floats) {
  return floats.subspan(loss_at(net, batch), 1);
}

}  // namespace gpulab::cnn
