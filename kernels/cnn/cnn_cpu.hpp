#pragma once
// The CNN on the CPU, written once for float (the `cpu` variant) and double (the reference and
// the finite-difference checks): each layer forward and backward, softmax with cross-entropy, a
// whole step's gradients, and Adam. Batches are NCHW, labels one int per image.
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "cnn/cnn.hpp"

namespace gpulab::cnn {

// What the forward pass keeps for the backward pass.
template <typename Real>
struct Activations {
  std::vector<Real> r1;   // ReLU(conv1): batch × c1 × side²
  std::vector<Real> p1;   // max-pooled: batch × c1 × side1²
  std::vector<int> at1;   // for each element of p1, the index in r1 it came from (its argmax)
  std::vector<Real> r2;   // ReLU(conv2): batch × c2 × side1²
  std::vector<Real> p2;   // max-pooled: batch × c2 × side2², which is batch × features
  std::vector<int> at2;   // for each element of p2, its index in r2
  std::vector<Real> h;    // ReLU(fc1): batch × hidden
  std::vector<Real> out;  // fc2: batch × classes, the logits
};

// The choices another step made at its max-pools (its argmax arrays, as Activations::at1 and at2),
// for the reference to follow: where two inputs of a window are equal to within rounding, the
// step and the reference may each pick a different one and send the window's gradient to
// different places — both right, but no longer comparable gradient by gradient. Following the
// step's choices, the reference checks everything else exactly; `bad` counts the choices that
// were not in their window or not its largest value to within `tolerance` (relative to the
// window's largest, or absolute below 1), which are errors of the step.
// The same holds for the ReLU before each pool, whose decision matters at the pool's choice alone
// (the rest of its window gets no gradient): where the step's pooled values are given (pooled1,
// pooled2: its ReLU's outputs at its choices), a decision the step made the other way round on a
// value within `tolerance` of the reference's (a sum that rounding moved across 0) is the step's;
// any other counts as bad.
struct PoolChoices {
  std::span<const int> at1, at2;
  double tolerance = 0;
  mutable std::size_t bad = 0;
  std::span<const float> pooled1 = {}, pooled2 = {};
};

// ---------------------------------------------------------------- layers, forward

// y[n][k][i][j] = ReLU(b[k] + Σ_c Σ_r Σ_s w[k][c][r][s] · x[n][c][i + r − 1][j + s − 1]): 3 × 3
// filters, padding 1 (outside the image counts as 0), stride 1, so y is side × side as x is.
template <typename Real, typename Param>
void conv3x3_relu(std::span<const Real> x, int batch, int channels, int side, const Param* w, const Param* b,
                  int filters, std::vector<Real>& y) {
  const std::size_t plane = static_cast<std::size_t>(side) * side;
  y.assign(static_cast<std::size_t>(batch) * filters * plane, Real(0));
#pragma omp parallel for collapse(2) schedule(static)
  for (int n = 0; n < batch; ++n) {
    for (int k = 0; k < filters; ++k) {
      for (int i = 0; i < side; ++i) {
        for (int j = 0; j < side; ++j) {
          Real z = Real(b[k]);
          for (int c = 0; c < channels; ++c) {
            const Real* in = x.data() + (static_cast<std::size_t>(n) * channels + c) * plane;
            const Param* f = w + (static_cast<std::size_t>(k) * channels + c) * 9;
            for (int r = 0; r < 3; ++r) {
              const int row = i + r - 1;
              if (row < 0 || row >= side) continue;
              for (int s = 0; s < 3; ++s) {
                const int col = j + s - 1;
                if (col >= 0 && col < side) z += Real(f[r * 3 + s]) * in[row * side + col];
              }
            }
          }
          y[(static_cast<std::size_t>(n) * filters + k) * plane + static_cast<std::size_t>(i) * side + j] =
              std::max(z, Real(0));
        }
      }
    }
  }
}

// 2 × 2 max-pool, stride 2: each output the largest of its window, and where it was (the first
// of equal ones, in row-major order: the GPU breaks ties the same way).
// Where `follow` holds another step's choices (PoolChoices), each right one is taken instead.
template <typename Real>
void max_pool2(std::span<const Real> x, int planes, int side, std::vector<Real>& y, std::vector<int>& at,
               const std::span<const int>* follow = nullptr, double tolerance = 0, std::size_t* bad = nullptr) {
  const int half = side / 2;
  y.resize(static_cast<std::size_t>(planes) * half * half);
  at.resize(y.size());
  for (int p = 0; p < planes; ++p) {
    for (int i = 0; i < half; ++i) {
      for (int j = 0; j < half; ++j) {
        int best = (p * side + 2 * i) * side + 2 * j;
        for (int di = 0; di < 2; ++di) {
          for (int dj = 0; dj < 2; ++dj) {
            const int k = (p * side + 2 * i + di) * side + 2 * j + dj;
            if (x[static_cast<std::size_t>(k)] > x[static_cast<std::size_t>(best)]) best = k;
          }
        }
        const std::size_t o = (static_cast<std::size_t>(p) * half + i) * half + j;
        if (follow != nullptr && !follow->empty()) {  // the other step's choice, where it is a right one
          const int chosen = (*follow)[o], row = chosen / side - p * side, col = chosen % side;
          const bool inside = chosen >= 0 && row / 2 == i && col / 2 == j && row >= 0 && row < side;
          const Real top = x[static_cast<std::size_t>(best)];
          if (!inside || !(double(x[static_cast<std::size_t>(chosen)]) >=
                           double(top) - tolerance * std::max(1.0, std::abs(double(top))))) {
            ++*bad;
          } else {
            best = chosen;
          }
        }
        y[o] = x[static_cast<std::size_t>(best)];
        at[o] = best;
      }
    }
  }
}

// y = x · Wᵀ + b, x batch × in, W out × in; with `relu`, ReLU(y).
template <typename Real, typename Param>
void linear(std::span<const Real> x, int batch, int in, const Param* w, const Param* b, int out, bool relu,
            std::vector<Real>& y) {
  y.resize(static_cast<std::size_t>(batch) * out);
#pragma omp parallel for collapse(2) schedule(static)
  for (int n = 0; n < batch; ++n) {
    for (int o = 0; o < out; ++o) {
      Real z = Real(b[o]);
      for (int i = 0; i < in; ++i)
        z += Real(w[static_cast<std::size_t>(o) * in + i]) * x[static_cast<std::size_t>(n) * in + i];
      y[static_cast<std::size_t>(n) * out + o] = relu ? std::max(z, Real(0)) : z;
    }
  }
}

template <typename Real, typename Param>
void forward(const Layout& net, std::span<const Param> params, std::span<const float> images, int batch,
             Activations<Real>& a, const PoolChoices* follow = nullptr) {
  const Param* p = params.data();
  const std::vector<Real> x(images.begin(), images.begin() + static_cast<std::ptrdiff_t>(batch * net.image_size()));
  conv3x3_relu<Real, Param>(x, batch, net.channels, net.side, p + net.offset(Layout::w1), p + net.offset(Layout::b1),
                            net.c1, a.r1);
  const double tolerance = follow != nullptr ? follow->tolerance : 0;
  std::size_t* bad = follow != nullptr ? &follow->bad : nullptr;
  max_pool2<Real>(a.r1, batch * net.c1, net.side, a.p1, a.at1, follow != nullptr ? &follow->at1 : nullptr, tolerance,
                  bad);
  conv3x3_relu<Real, Param>(a.p1, batch, net.c1, net.side1(), p + net.offset(Layout::w2), p + net.offset(Layout::b2),
                            net.c2, a.r2);
  max_pool2<Real>(a.r2, batch * net.c2, net.side1(), a.p2, a.at2, follow != nullptr ? &follow->at2 : nullptr, tolerance,
                  bad);
  linear<Real, Param>(a.p2, batch, net.features(), p + net.offset(Layout::w3), p + net.offset(Layout::b3), net.hidden,
                      true, a.h);
  linear<Real, Param>(a.h, batch, net.hidden, p + net.offset(Layout::w4), p + net.offset(Layout::b4), net.classes,
                      false, a.out);
}

// ---------------------------------------------------------------- the loss

// The mean over the batch of −log softmax(logits)[label], and its gradient with respect to the
// logits: (softmax − one-hot) / batch. Stable: the row's largest logit is subtracted before exp,
// which changes no probability and keeps every exp in (0, 1].
template <typename Real>
Real softmax_cross_entropy(std::span<const Real> logits, std::span<const int> labels, int batch, int classes,
                           std::vector<Real>& dlogits) {
  dlogits.resize(static_cast<std::size_t>(batch) * classes);
  Real total = 0;
  for (int n = 0; n < batch; ++n) {
    const Real* z = logits.data() + static_cast<std::size_t>(n) * classes;
    const Real top = *std::max_element(z, z + classes);
    Real sum = 0;
    for (int c = 0; c < classes; ++c) sum += std::exp(z[c] - top);
    const int label = labels[static_cast<std::size_t>(n)];
    total += std::log(sum) - (z[label] - top);
    for (int c = 0; c < classes; ++c) {
      const Real probability = std::exp(z[c] - top) / sum;
      dlogits[static_cast<std::size_t>(n) * classes + c] =
          (probability - (c == label ? Real(1) : Real(0))) / Real(batch);
    }
  }
  return batch > 0 ? total / Real(batch) : Real(0);
}

// ---------------------------------------------------------------- layers, backward

// Given dL/dy of y = x · Wᵀ + b: dW += dyᵀ · x, db += Σ_n dy, and (where dx is given) dx = dy · W.
template <typename Real, typename Param>
void linear_backward(std::span<const Real> x, int batch, int in, const Param* w, int out, std::span<const Real> dy,
                     Real* dw, Real* db, std::vector<Real>* dx) {
  for (int o = 0; o < out; ++o) {
    for (int n = 0; n < batch; ++n) {
      const Real d = dy[static_cast<std::size_t>(n) * out + o];
      db[o] += d;
      for (int i = 0; i < in; ++i)
        dw[static_cast<std::size_t>(o) * in + i] += d * x[static_cast<std::size_t>(n) * in + i];
    }
  }
  if (dx == nullptr) return;
  dx->assign(static_cast<std::size_t>(batch) * in, Real(0));
  for (int n = 0; n < batch; ++n) {
    for (int o = 0; o < out; ++o) {
      const Real d = dy[static_cast<std::size_t>(n) * out + o];
      for (int i = 0; i < in; ++i)
        (*dx)[static_cast<std::size_t>(n) * in + i] += d * Real(w[static_cast<std::size_t>(o) * in + i]);
    }
  }
}

// ReLU's backward pass: the gradient passes where the output was positive, and stops elsewhere.
template <typename Real>
void relu_backward(std::span<const Real> y, std::vector<Real>& dy) {
  for (std::size_t i = 0; i < dy.size(); ++i) {
    if (!(y[i] > Real(0))) dy[i] = Real(0);
  }
}

// ReLU's backward pass below a max-pool, where another step's pooled values are given (PoolChoices):
// only the pool's choices carry a gradient, each passing where that step's ReLU passed it, if the
// reference's value there (r at the choice) is within `tolerance` of the step's; else where the
// reference's ReLU passes it, and the choice counts as bad.
template <typename Real>
void relu_backward_following(std::span<const Real> r, std::span<const int> at, std::span<const float> pooled,
                             double tolerance, std::size_t* bad, std::vector<Real>& dr) {
  for (std::size_t o = 0; o < at.size(); ++o) {
    const std::size_t i = static_cast<std::size_t>(at[o]);
    bool passes = r[i] > Real(0);
    if (passes != (pooled[o] > 0.0f)) {
      if (std::abs(double(r[i]) - double(pooled[o])) <= tolerance) {
        passes = !passes;
      } else {
        ++*bad;
      }
    }
    if (!passes) dr[i] = Real(0);
  }
}

// Max-pool's backward pass: each output's gradient goes to the one input it came from.
template <typename Real>
void max_pool2_backward(std::span<const Real> dy, std::span<const int> at, std::size_t inputs, std::vector<Real>& dx) {
  dx.assign(inputs, Real(0));
  for (std::size_t o = 0; o < dy.size(); ++o) dx[static_cast<std::size_t>(at[o])] += dy[o];
}

// Given dL/dz of z = conv3x3(x) + b (before the ReLU): dW[k][c][r][s] += Σ_n,i,j dz[n][k][i][j] ·
// x[n][c][i + r − 1][j + s − 1], db[k] += Σ dz[n][k], and (where dx is given) dx[n][c][i][j] =
// Σ_k,r,s dz[n][k][i − r + 1][j − s + 1] · w[k][c][r][s]: the forward convolution's transpose.
template <typename Real, typename Param>
void conv3x3_backward(std::span<const Real> x, int batch, int channels, int side, const Param* w, int filters,
                      std::span<const Real> dz, Real* dw, Real* db, std::vector<Real>* dx) {
  const std::size_t plane = static_cast<std::size_t>(side) * side;
  if (dx != nullptr) dx->assign(static_cast<std::size_t>(batch) * channels * plane, Real(0));
  for (int n = 0; n < batch; ++n) {
    for (int k = 0; k < filters; ++k) {
      const Real* d = dz.data() + (static_cast<std::size_t>(n) * filters + k) * plane;
      for (int i = 0; i < side; ++i) {
        for (int j = 0; j < side; ++j) {
          const Real g = d[i * side + j];
          if (g == Real(0)) continue;  // most of a ReLU layer's gradient is zero
          db[k] += g;
          for (int c = 0; c < channels; ++c) {
            const std::size_t in_plane = (static_cast<std::size_t>(n) * channels + c) * plane;
            const std::size_t f = (static_cast<std::size_t>(k) * channels + c) * 9;
            for (int r = 0; r < 3; ++r) {
              const int row = i + r - 1;
              if (row < 0 || row >= side) continue;
              for (int s = 0; s < 3; ++s) {
                const int col = j + s - 1;
                if (col < 0 || col >= side) continue;
                const std::size_t at = in_plane + static_cast<std::size_t>(row) * side + col;
                dw[f + r * 3 + s] += g * x[at];
                if (dx != nullptr) (*dx)[at] += g * Real(w[f + r * 3 + s]);
              }
            }
          }
        }
      }
    }
  }
}

// ---------------------------------------------------------------- a whole step

// The backward pass of a step whose forward pass `a` kept: from d_out, the loss's gradient with
// respect to the logits, every parameter's gradient (`grads`, in the parameters' layout); `follow`:
// another step's max-pool choices (and ReLU decisions at them) to make where they are right ones
// (PoolChoices).
template <typename Real, typename Param>
void backward(const Layout& net, std::span<const Param> params, std::span<const float> images, int batch,
              const Activations<Real>& a, std::span<const Real> d_out, std::vector<Real>& grads,
              const PoolChoices* follow = nullptr) {
  std::vector<Real> d_h, d_p2, d_r2, d_p1, d_r1;
  grads.assign(net.parameters(), Real(0));
  Real* g = grads.data();
  const Param* p = params.data();
  using L = Layout;
  linear_backward<Real, Param>(a.h, batch, net.hidden, p + net.offset(L::w4), net.classes, d_out, g + net.offset(L::w4),
                               g + net.offset(L::b4), &d_h);
  relu_backward<Real>(a.h, d_h);
  linear_backward<Real, Param>(a.p2, batch, net.features(), p + net.offset(L::w3), net.hidden, d_h,
                               g + net.offset(L::w3), g + net.offset(L::b3), &d_p2);
  // The ReLUs before the pools: the reference's own decisions, or the step's where it is right.
  const auto pool_relu_backward = [&](const std::vector<Real>& r, const std::vector<int>& at,
                                      std::span<const float> pooled, std::vector<Real>& dr) {
    if (follow != nullptr && pooled.size() == at.size()) {
      relu_backward_following<Real>(r, at, pooled, follow->tolerance, &follow->bad, dr);
    } else {
      relu_backward<Real>(r, dr);
    }
  };
  max_pool2_backward<Real>(d_p2, a.at2, a.r2.size(), d_r2);
  pool_relu_backward(a.r2, a.at2, follow != nullptr ? follow->pooled2 : std::span<const float>{}, d_r2);
  conv3x3_backward<Real, Param>(a.p1, batch, net.c1, net.side1(), p + net.offset(L::w2), net.c2, d_r2,
                                g + net.offset(L::w2), g + net.offset(L::b2), &d_p1);
  max_pool2_backward<Real>(d_p1, a.at1, a.r1.size(), d_r1);
  pool_relu_backward(a.r1, a.at1, follow != nullptr ? follow->pooled1 : std::span<const float>{}, d_r1);
  const std::vector<Real> x(images.begin(), images.begin() + static_cast<std::ptrdiff_t>(batch * net.image_size()));
  conv3x3_backward<Real, Param>(x, batch, net.channels, net.side, p + net.offset(L::w1), net.c1, d_r1,
                                g + net.offset(L::w1), g + net.offset(L::b1), nullptr);
}

// The mean loss of the batch, and its gradient with respect to every parameter (`grads`, in the
// parameters' layout); `a` keeps the forward pass (its logits give the predictions); `follow`: another
// step's max-pool choices (and ReLU decisions at them) to make where they are right ones (PoolChoices).
template <typename Real, typename Param>
Real gradients(const Layout& net, std::span<const Param> params, std::span<const float> images,
               std::span<const int> labels, int batch, std::vector<Real>& grads, Activations<Real>& a,
               const PoolChoices* follow = nullptr) {
  forward<Real, Param>(net, params, images, batch, a, follow);
  std::vector<Real> d_out;
  const Real loss = softmax_cross_entropy<Real>(a.out, labels, batch, net.classes, d_out);
  backward<Real, Param>(net, params, images, batch, a, d_out, grads, follow);
  return loss;
}

// The scale of float's rounding on each gradient of a step whose float64 forward pass `a` and
// gradients `grads` were computed with `follow` (gradients): the largest gradient, or, where a
// gradient's sums add larger terms than that, the size of those terms. Rounding errs by a fraction
// of the terms a sum adds, not of the sum: a bias of the last layer sums (p − y) / batch over the
// batch, terms up to 1 / batch each, which can cancel to a gradient of 10⁻³ whose float error (a
// few 10⁻⁸, from p − y rounded near 1) is then 10⁻⁵ of it. The terms' sizes are the same
// backward pass on magnitudes: |w|, |x|, and (p + y) / batch for p − y.
template <typename Param>
std::vector<double> rounding_scales(const Layout& net, std::span<const Param> params, std::span<const float> images,
                                    std::span<const int> labels, int batch, const Activations<double>& a,
                                    std::span<const double> grads, const PoolChoices* follow = nullptr) {
  std::vector<Param> magnitudes(params.begin(), params.end());
  for (Param& w : magnitudes) w = std::abs(w);
  std::vector<float> pixels(images.begin(), images.end());
  for (float& x : pixels) x = std::abs(x);
  std::vector<double> d_out;
  softmax_cross_entropy<double>(a.out, labels, batch, net.classes, d_out);
  for (std::size_t i = 0; i < d_out.size(); ++i) {  // (p − y) / batch → (p + y) / batch
    const bool label = labels[i / static_cast<std::size_t>(net.classes)] == int(i % net.classes);
    if (label) d_out[i] += 2.0 / batch;
  }
  PoolChoices same;  // the same decisions again, without counting their bad ones twice
  if (follow != nullptr) same = *follow;
  std::vector<double> scales;
  backward<double, Param>(net, magnitudes, pixels, batch, a, d_out, scales, follow != nullptr ? &same : nullptr);
  double largest = 0;
  for (double g : grads) largest = std::max(largest, std::abs(g));
  for (double& s : scales) s = std::max(s, largest);
  return scales;
}

// Adam's update of every parameter from its gradient, step t ≥ 1: m and v follow g and g² with
// the betas, are divided by 1 − βᵗ (they start at 0, which would bias the first steps towards 0),
// and the parameter moves by rate · m̂ / (√v̂ + ε). Sums in Real, parameters and moments stored as float.
template <typename Real>
void adam_update(std::span<float> params, std::span<const Real> grads, Moments& moments, int t, const Adam& adam) {
  const Real c1 = Real(1) - std::pow(Real(adam.beta1), Real(t)), c2 = Real(1) - std::pow(Real(adam.beta2), Real(t));
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Real g = grads[i];
    const Real m = Real(adam.beta1) * Real(moments.m[i]) + (Real(1) - Real(adam.beta1)) * g;
    const Real v = Real(adam.beta2) * Real(moments.v[i]) + (Real(1) - Real(adam.beta2)) * g * g;
    moments.m[i] = static_cast<float>(m);
    moments.v[i] = static_cast<float>(v);
    params[i] =
        static_cast<float>(Real(params[i]) - Real(adam.rate) * (m / c1) / (std::sqrt(v / c2) + Real(adam.epsilon)));
  }
}

// The class each image's logits pick (the first of equal ones).
template <typename Real>
std::vector<int> predictions(std::span<const Real> logits, int batch, int classes) {
  std::vector<int> picked(static_cast<std::size_t>(batch));
  for (int n = 0; n < batch; ++n) {
    const Real* z = logits.data() + static_cast<std::size_t>(n) * classes;
    picked[static_cast<std::size_t>(n)] = static_cast<int>(std::max_element(z, z + classes) - z);
  }
  return picked;
}

}  // namespace gpulab::cnn
