#pragma once
// The network on the CPU, written once for float (the `cpu` variant) and double (the reference
// and the finite-difference checks): forward pass, loss, backward pass, SGD step. Batches are
// row-major, one example per row: x is batch × inputs, targets batch × outputs.
#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "mlp/mlp.hpp"

namespace gpulab::mlp {

// The activations of a forward pass: a[0] = x, a[l + 1] = σ(W_l · a[l] + b_l), each batch × width.
template <typename Real>
using Activations = std::vector<std::vector<Real>>;

// The CPU loops work on groups of rows so that what they reuse stays in cache.
inline constexpr int kGroup = 8;

// Threads only pay for themselves on layers of more than 65536 multiply-adds.
inline bool worth_threads(int batch, int out, int in) { return static_cast<double>(batch) * out * in > 65536; }

template <typename Real>
Real sigmoid(Real z) {
  return Real(1) / (Real(1) + std::exp(-z));
}

// [snippet:cpu_forward]
template <typename Real, typename Param>
void forward(const Layout& net, std::span<const Param> params, std::span<const float> x, int batch,
             Activations<Real>& a) {
  a.resize(static_cast<std::size_t>(net.layers()) + 1);
  a[0].assign(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(batch) * net.inputs());
  for (int l = 0; l < net.layers(); ++l) {
    const int in = net.sizes[static_cast<std::size_t>(l)], out = net.sizes[static_cast<std::size_t>(l) + 1];
    const Param* w = params.data() + net.weight_offset(l);
    const Param* b = params.data() + net.bias_offset(l);
    const std::vector<Real>& from = a[static_cast<std::size_t>(l)];
    std::vector<Real>& to = a[static_cast<std::size_t>(l) + 1];
    to.assign(static_cast<std::size_t>(batch) * out, Real(0));
    // Examples in groups of 8: each row of W, once in cache, serves 8 examples before the next.
#pragma omp parallel for schedule(static) if (worth_threads(batch, out, in))
    for (int e0 = 0; e0 < batch; e0 += kGroup) {
      for (int j = 0; j < out; ++j) {
        for (int e = e0; e < std::min(batch, e0 + kGroup); ++e) {
          Real z = 0;
          // simd: the sum may be split into vector lanes (a different rounding, as on the GPU).
#pragma omp simd reduction(+ : z)
          for (int i = 0; i < in; ++i) z += Real(w[j * in + i]) * from[static_cast<std::size_t>(e) * in + i];
          to[static_cast<std::size_t>(e) * out + j] = sigmoid(z + Real(b[j]));
        }
      }
    }
  }
}
// [/snippet]

// The mean loss over the batch and the outputs, and dL/dz of the output layer (into `delta`).
template <typename Real>
Real loss_and_delta(std::span<const Real> y, std::span<const float> t, Loss loss, std::vector<Real>& delta) {
  const std::size_t count = y.size();
  delta.assign(count, Real(0));
  Real total = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const Real yi = y[i], ti = t[i];
    if (loss == Loss::mse) {
      total += (yi - ti) * (yi - ti);
      delta[i] = Real(2) * (yi - ti) * yi * (Real(1) - yi) / Real(count);  // σ' = y (1 − y)
    } else {
      const Real eps = Real(1e-7);  // log(0) guard, the same on every backend
      total -= ti * std::log(std::max(yi, eps)) + (Real(1) - ti) * std::log(std::max(Real(1) - yi, eps));
      delta[i] = (yi - ti) / Real(count);  // σ' cancels against the log's derivative
    }
  }
  return total / Real(count);
}

// [snippet:cpu_backward]
// Gradients of the mean loss with respect to every parameter (same layout as params); returns the loss.
template <typename Real, typename Param>
Real gradients(const Layout& net, std::span<const Param> params, std::span<const float> x, std::span<const float> t,
               int batch, Loss loss, std::span<Real> grads) {
  Activations<Real> a;
  forward<Real>(net, params, x, batch, a);
  std::vector<Real> delta, previous;
  const Real value = loss_and_delta<Real>(a.back(), t.first(a.back().size()), loss, delta);
  for (int l = net.layers() - 1; l >= 0; --l) {
    const int in = net.sizes[static_cast<std::size_t>(l)], out = net.sizes[static_cast<std::size_t>(l) + 1];
    const std::vector<Real>& input = a[static_cast<std::size_t>(l)];
    Real* dw = grads.data() + net.weight_offset(l);
    Real* db = grads.data() + net.bias_offset(l);
    // dW = deltaᵀ · input, db = column sums of delta, in groups of 8 output units: their rows of
    // dW stay in cache while the batch streams past once per group.
#pragma omp parallel for schedule(static) if (worth_threads(batch, out, in))
    for (int j0 = 0; j0 < out; j0 += kGroup) {
      const int j1 = std::min(out, j0 + kGroup);
      for (int j = j0; j < j1; ++j) {
        db[j] = 0;
        for (int i = 0; i < in; ++i) dw[j * in + i] = 0;
      }
      for (int e = 0; e < batch; ++e) {
        const Real* row = input.data() + static_cast<std::size_t>(e) * in;
        for (int j = j0; j < j1; ++j) {
          const Real d = delta[static_cast<std::size_t>(e) * out + j];
          db[j] += d;
          for (int i = 0; i < in; ++i) dw[j * in + i] += d * row[i];
        }
      }
    }
    if (l == 0) break;
    // The previous layer's dL/dz: back through W, times its sigmoid's derivative a (1 − a).
    const Param* w = params.data() + net.weight_offset(l);
    previous.assign(static_cast<std::size_t>(batch) * in, Real(0));
#pragma omp parallel for schedule(static) if (worth_threads(batch, out, in))
    for (int e = 0; e < batch; ++e) {
      Real* row = previous.data() + static_cast<std::size_t>(e) * in;
      for (int j = 0; j < out; ++j) {  // row += delta[e][j] · W[j], along contiguous rows of W
        const Real d = delta[static_cast<std::size_t>(e) * out + j];
        for (int i = 0; i < in; ++i) row[i] += d * Real(w[j * in + i]);
      }
      for (int i = 0; i < in; ++i) {
        const Real ai = input[static_cast<std::size_t>(e) * in + i];
        row[i] *= ai * (Real(1) - ai);
      }
    }
    delta.swap(previous);
  }
  return value;
}
// [/snippet]

}  // namespace gpulab::mlp
