// The tiny network's whole training step in one kernel whose widths are compile-time constants,
// so that each thread keeps its examples' activations and its share of the gradient in registers.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/launch.cuh"
#include "mlp/mlp.hpp"

namespace gpulab::mlp {

constexpr int kRegisterThreads = 64;

// [snippet:fused_registers_kernel]
// What it adds over fused_step_kernel: the widths are template parameters. Every loop then has a
// known trip count and unrolls, so one example's activations and the thread's share of the
// gradient (one float per parameter) live in registers, and the step needs one barrier instead
// of one per phase: each thread runs forward, loss and backward for its examples on its own,
// reading the parameters from global memory (all lanes read the same address: one transaction
// that the L1 cache then serves), and the block adds up the threads' gradients at the end.
// For a 2 → 16 → 1 network that is 65 registers of gradient per thread.
template <int In, int Hidden, int Out>
__global__ void __launch_bounds__(kRegisterThreads)
    fused_registers_kernel(float* params, const float* x, const float* t, float* loss, int batch, float lr, bool bce) {
  constexpr int kW1 = 0, kB1 = Hidden * In, kW2 = kB1 + Hidden, kB2 = kW2 + Out * Hidden, kParams = kB2 + Out;
  __shared__ float partial[kParams + 1][kRegisterThreads];  // each thread's gradient and loss, one column each
  const int tid = threadIdx.x;
  const float scale = 1.0f / static_cast<float>(batch * Out);
  float grad[kParams + 1] = {};  // the last one: the loss
  for (int e = tid; e < batch; e += kRegisterThreads) {
    float a0[In], a1[Hidden], delta[Out], target[Out];
#pragma unroll
    for (int k = 0; k < In; ++k) a0[k] = x[e * In + k];
#pragma unroll
    for (int o = 0; o < Out; ++o) target[o] = t[e * Out + o];  // loaded now, while the forward pass runs
#pragma unroll
    for (int j = 0; j < Hidden; ++j) {  // forward: hidden layer
      float z = 0.0f;
#pragma unroll
      for (int k = 0; k < In; ++k) z += params[kW1 + j * In + k] * a0[k];
      a1[j] = __frcp_rn(1.0f + expf(-(z + params[kB1 + j])));
    }
#pragma unroll
    for (int o = 0; o < Out; ++o) {  // forward: output layer, the loss and its delta
      float z = 0.0f;
#pragma unroll
      for (int j = 0; j < Hidden; ++j) z += params[kW2 + o * Hidden + j] * a1[j];
      const float y = __frcp_rn(1.0f + expf(-(z + params[kB2 + o]))), ti = target[o];
      if (bce) {
        grad[kParams] += -(ti * logf(fmaxf(y, 1e-7f)) + (1.0f - ti) * logf(fmaxf(1.0f - y, 1e-7f))) * scale;
        delta[o] = (y - ti) * scale;
      } else {
        grad[kParams] += (y - ti) * (y - ti) * scale;
        delta[o] = 2.0f * (y - ti) * y * (1.0f - y) * scale;
      }
      grad[kB2 + o] += delta[o];
#pragma unroll
      for (int j = 0; j < Hidden; ++j) grad[kW2 + o * Hidden + j] += delta[o] * a1[j];
    }
#pragma unroll
    for (int j = 0; j < Hidden; ++j) {  // backward into the hidden layer
      float sum = 0.0f;
#pragma unroll
      for (int o = 0; o < Out; ++o) sum += params[kW2 + o * Hidden + j] * delta[o];
      const float d = sum * a1[j] * (1.0f - a1[j]);
      grad[kB1 + j] += d;
#pragma unroll
      for (int k = 0; k < In; ++k) grad[kW1 + j * In + k] += d * a0[k];
    }
  }
#pragma unroll
  for (int i = 0; i <= kParams; ++i) partial[i][tid] = grad[i];
  __syncthreads();  // every thread has read the old parameters and left its gradient
  for (int i = tid; i <= kParams; i += kRegisterThreads) {
    float sums[4] = {};  // four chains of additions instead of one long one
#pragma unroll
    for (int r = 0; r < kRegisterThreads; ++r) sums[r % 4] += partial[i][r];
    const float sum = (sums[0] + sums[1]) + (sums[2] + sums[3]);
    if (i < kParams) {
      params[i] -= lr * sum;
    } else {
      *loss = sum;
    }
  }
}
// [/snippet]

namespace {

// The widths fused_registers_kernel is built for: a kernel per network shape, as a library
// ships kernels per tile shape.
template <int In, int Hidden, int Out>
struct Shape {
  static bool is(const Layout& net) { return net.sizes == std::vector<int>{In, Hidden, Out}; }
  static void launch(std::span<float> params, std::span<const float> x, std::span<const float> t, std::span<float> loss,
                     int batch, float lr, bool bce) {
    fused_registers_kernel<In, Hidden, Out>
        <<<dim3(1), dim3(kRegisterThreads)>>>(params.data(), x.data(), t.data(), loss.data(), batch, lr, bce);
    check_launch("fused_registers_kernel<In, Hidden, Out>", dim3(1), dim3(kRegisterThreads));
  }
};
template <typename... Shapes>
struct ShapeList {
  static bool has(const Layout& net) { return (Shapes::is(net) || ...); }
  template <typename... Args>
  static void launch(const Layout& net, Args... args) {
    ((Shapes::is(net) ? (Shapes::launch(args...), true) : false) || ...);
  }
};
// (2 × 32 × 1 would need 129 registers of gradient and spills: the kernel's idea has a size limit.)
using RegisterShapes = ShapeList<Shape<2, 8, 1>, Shape<2, 16, 1>>;

}  // namespace

bool fused_registers_fits(const Layout& net) { return RegisterShapes::has(net); }

void fused_registers_step(const Layout& net, std::span<float> params, std::span<const float> x,
                          std::span<const float> t, int batch, float lr, Loss loss_kind, std::span<float> loss) {
  check_step_buffers(net, params, x, batch);
  if (loss.empty() || t.size() < static_cast<std::size_t>(batch) * static_cast<std::size_t>(net.outputs())) {
    throw std::invalid_argument("mlp: t must hold batch × outputs floats and loss one");
  }
  if (!fused_registers_fits(net)) {
    throw std::invalid_argument("mlp fused step in registers: no kernel for " + gpulab::mlp::to_string(net) +
                                "; it is built for 2x8x1 and 2x16x1");
  }
  if (batch == 0) {
    GPULAB_CUDA_CHECK(cudaMemsetAsync(loss.data(), 0, sizeof(float)));
    return;
  }
  RegisterShapes::launch(net, params, x, t, loss, batch, lr, loss_kind == Loss::bce);
}

}  // namespace gpulab::mlp
