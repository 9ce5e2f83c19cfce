// The tiny network on the GPU, layer by layer: a training step is a sequence of small kernels,
// each one operation of the CPU version (mlp_cpu.hpp), in the same order.
//
//   forward, per layer     Z = A · Wᵀ (gemm_kernel), then A' = σ(Z + b) (bias_sigmoid_kernel)
//   loss                   the mean loss and dL/dZ of the output layer (loss_delta_kernel)
//   backward, per layer    dW = Δᵀ · A (gemm_kernel), db = column sums of Δ (column_sums_kernel),
//                          Δ' = (Δ · W) ⊙ A (1 − A) (gemm_kernel, then sigmoid_derivative_kernel)
//   update                 params −= lr · gradients (sgd_kernel)
//
// At the sizes of this lesson each kernel has little work: launches, not arithmetic, set the
// time — which is what the fused and graph variants of the lesson address.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/launch.cuh"
#include "mlp/mlp.hpp"

namespace gpulab::mlp {

namespace {

constexpr int kTile = 16;

}  // namespace

// [snippet:gemm_kernel]
// C (m × n) = op(A) · op(B), row-major, op(A) m × k and op(B) k × n. TA: A is stored k × m
// (transposed); TB: B is stored n × k. 16 × 16 tiles through shared memory, as in lesson 05.
template <bool TA, bool TB>
__global__ void gemm_kernel(const float* a, const float* b, float* c, int m, int n, int k) {
  __shared__ float as[kTile][kTile + 1], bs[kTile][kTile + 1];
  const int tx = static_cast<int>(threadIdx.x), ty = static_cast<int>(threadIdx.y);
  const int row = static_cast<int>(blockIdx.y) * kTile + ty, col = static_cast<int>(blockIdx.x) * kTile + tx;
  float sum = 0.0f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    const int ka = k0 + tx, kb = k0 + ty;
    as[ty][tx] = (row < m && ka < k) ? (TA ? a[ka * m + row] : a[row * k + ka]) : 0.0f;
    bs[ty][tx] = (kb < k && col < n) ? (TB ? b[col * k + kb] : b[kb * n + col]) : 0.0f;
    __syncthreads();
    for (int i = 0; i < kTile; ++i) sum += as[ty][i] * bs[i][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = sum;
}
// [/snippet]

// A = σ(Z + b), in place; b is broadcast along the rows.
__global__ void bias_sigmoid_kernel(float* z, const float* bias, int rows, int cols) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < rows * cols) z[i] = 1.0f / (1.0f + expf(-(z[i] + bias[i % cols])));
}

// The mean loss (added into *loss, which starts at 0) and dL/dZ of the output layer, as
// loss_and_delta in mlp_cpu.hpp.
__global__ void loss_delta_kernel(const float* y, const float* t, float* delta, float* loss, int count, bool bce) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= count) return;
  const float yi = y[i], ti = t[i], scale = 1.0f / static_cast<float>(count);
  float term;
  if (bce) {
    const float eps = 1e-7f;
    term = -(ti * logf(fmaxf(yi, eps)) + (1.0f - ti) * logf(fmaxf(1.0f - yi, eps)));
    delta[i] = (yi - ti) * scale;
  } else {
    term = (yi - ti) * (yi - ti);
    delta[i] = 2.0f * (yi - ti) * yi * (1.0f - yi) * scale;
  }
  atomicAdd(loss, term * scale);
}

// db[j] = Σ_e Δ[e][j]: one thread per column.
__global__ void column_sums_kernel(const float* delta, float* db, int rows, int cols) {
  const int j = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (j >= cols) return;
  float sum = 0.0f;
  for (int e = 0; e < rows; ++e) sum += delta[e * cols + j];
  db[j] = sum;
}

// Δ' = G ⊙ A (1 − A), in place in G.
__global__ void sigmoid_derivative_kernel(float* g, const float* a, int count) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < count) g[i] *= a[i] * (1.0f - a[i]);
}

__global__ void sgd_kernel(float* params, const float* grads, float lr, int count) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < count) params[i] -= lr * grads[i];
}

namespace {

using gpulab::mlp::StepOptions;
cudaStream_t stream_of(const StepOptions& options) { return static_cast<cudaStream_t>(options.stream); }

template <bool TA, bool TB>
void gemm(const float* a, const float* b, float* c, int m, int n, int k, const StepOptions& options) {
  if (options.gemm != nullptr) return options.gemm(TA, TB, a, b, c, m, n, k, options.stream);
  const dim3 grid(blocks_for(n, kTile), blocks_for(m, kTile));
  gemm_kernel<TA, TB><<<grid, dim3(kTile, kTile), 0, stream_of(options)>>>(a, b, c, m, n, k);
  check_launch("gemm_kernel<TA, TB>", grid, dim3(kTile, kTile));
}

// The layer's own kernels, or the ones StepOptions names instead (lesson 07's exercise).
void bias_sigmoid(float* z, const float* bias, int rows, int cols, const StepOptions& options) {
  if (options.bias_sigmoid != nullptr) return options.bias_sigmoid(z, bias, rows, cols, options.stream);
  bias_sigmoid_kernel<<<blocks_for(static_cast<long>(rows) * cols, 256), 256, 0, stream_of(options)>>>(z, bias, rows,
                                                                                                       cols);
  check_launch("bias_sigmoid_kernel", blocks_for(static_cast<long>(rows) * cols, 256), 256);
}
void column_sums(const float* delta, float* db, int rows, int cols, const StepOptions& options) {
  if (options.column_sums != nullptr) return options.column_sums(delta, db, rows, cols, options.stream);
  column_sums_kernel<<<blocks_for(cols, 256), 256, 0, stream_of(options)>>>(delta, db, rows, cols);
  check_launch("column_sums_kernel", blocks_for(cols, 256), 256);
}

int widest(const Layout& net) {
  int w = 0;
  for (int s : net.sizes) w = s > w ? s : w;
  return w;
}

// Where each layer's activations start in the workspace (layer l's output, l = 0 … L − 1),
// then the two delta buffers, then the gradients.
struct Scratch {
  std::vector<float*> activations;
  float *delta = nullptr, *other = nullptr, *grads = nullptr;
};

Scratch scratch_of(const Layout& net, int batch, std::span<float> workspace) {
  if (workspace.size() < step_workspace(net, batch)) throw std::invalid_argument("mlp: workspace too small");
  Scratch s;
  float* p = workspace.data();
  for (int l = 0; l < net.layers(); ++l) {
    s.activations.push_back(p);
    p += static_cast<std::size_t>(batch) * net.sizes[static_cast<std::size_t>(l) + 1];
  }
  s.delta = p;
  p += static_cast<std::size_t>(batch) * widest(net);
  s.other = p;
  p += static_cast<std::size_t>(batch) * widest(net);
  s.grads = p;
  return s;
}

void check(const Layout& net, std::span<const float> params, std::span<const float> x, int batch) {
  gpulab::mlp::check_layout(net);
  if (batch < 0 || params.size() != net.parameters() ||
      x.size() < static_cast<std::size_t>(batch) * static_cast<std::size_t>(net.inputs())) {
    throw std::invalid_argument("mlp: params must hold " + std::to_string(net.parameters()) +
                                " floats and x batch × inputs");
  }
}

}  // namespace

void forward_layer(const float* w, const float* b, const float* input, float* output, int batch, int in, int out,
                   const StepOptions& options) {
  gemm<false, true>(input, w, output, batch, out, in, options);  // Z = A · Wᵀ
  bias_sigmoid(output, b, batch, out, options);
}

void output_delta(const float* y, const float* t, float* delta, float* loss, int count, Loss loss_kind,
                  const StepOptions& options) {
  GPULAB_CUDA_CHECK(cudaMemsetAsync(loss, 0, sizeof(float), stream_of(options)));  // the loss sums into it
  if (count == 0) return;
  loss_delta_kernel<<<blocks_for(count, 256), 256, 0, stream_of(options)>>>(y, t, delta, loss, count,
                                                                            loss_kind == Loss::bce);
  check_launch("loss_delta_kernel", blocks_for(count, 256), 256);
}

void backward_layer(const float* delta, const float* input, const float* w, float* dw, float* db, float* delta_in,
                    int batch, int in, int out, const StepOptions& options) {
  gemm<true, false>(delta, input, dw, out, in, batch, options);  // dW = Δᵀ · A
  column_sums(delta, db, batch, out, options);
  if (delta_in == nullptr) return;
  gemm<false, false>(delta, w, delta_in, batch, in, out, options);  // Δ · W
  sigmoid_derivative_kernel<<<blocks_for(static_cast<long>(batch) * in, 256), 256, 0, stream_of(options)>>>(
      delta_in, input, batch * in);
  check_launch("sigmoid_derivative_kernel", blocks_for(static_cast<long>(batch) * in, 256), 256);
}

void sgd(float* params, const float* grads, std::size_t count, float lr, const StepOptions& options) {
  if (count == 0) return;
  const auto n = static_cast<int>(count);
  sgd_kernel<<<blocks_for(n, 256), 256, 0, stream_of(options)>>>(params, grads, lr, n);
  check_launch("sgd_kernel", blocks_for(n, 256), 256);
}

std::span<float> step_gradients(const Layout& net, int batch, std::span<float> workspace) {
  return {scratch_of(net, batch, workspace).grads, net.parameters()};
}

std::size_t step_workspace(const Layout& net, int batch) {
  std::size_t floats = net.parameters();
  for (int l = 1; l <= net.layers(); ++l)
    floats += static_cast<std::size_t>(batch) * net.sizes[static_cast<std::size_t>(l)];
  return floats + 2 * static_cast<std::size_t>(batch) * widest(net);
}

// [snippet:layered_step]
void layered_step(const Layout& net, std::span<float> params, std::span<const float> x, std::span<const float> t,
                  int batch, float lr, Loss loss_kind, std::span<float> workspace, std::span<float> loss,
                  const StepOptions& options) {
  check(net, params, x, batch);
  if (loss.empty() || t.size() < static_cast<std::size_t>(batch) * static_cast<std::size_t>(net.outputs())) {
    throw std::invalid_argument("mlp: t must hold batch × outputs floats and loss one");
  }
  if (batch == 0) {
    output_delta(nullptr, nullptr, nullptr, loss.data(), 0, loss_kind, options);  // loss 0, nothing to learn
    return;
  }
  const Scratch s = scratch_of(net, batch, workspace);
  const float* input = x.data();
  for (int l = 0; l < net.layers(); ++l) {  // forward
    const int in = net.sizes[static_cast<std::size_t>(l)], out = net.sizes[static_cast<std::size_t>(l) + 1];
    forward_layer(params.data() + net.weight_offset(l), params.data() + net.bias_offset(l), input,
                  s.activations[static_cast<std::size_t>(l)], batch, in, out, options);
    input = s.activations[static_cast<std::size_t>(l)];
  }
  output_delta(input, t.data(), s.delta, loss.data(), batch * net.outputs(), loss_kind, options);
  float* delta = s.delta;
  float* other = s.other;
  for (int l = net.layers() - 1; l >= 0; --l) {  // backward
    const int in = net.sizes[static_cast<std::size_t>(l)], out = net.sizes[static_cast<std::size_t>(l) + 1];
    const float* layer_input = l == 0 ? x.data() : s.activations[static_cast<std::size_t>(l) - 1];
    backward_layer(delta, layer_input, params.data() + net.weight_offset(l), s.grads + net.weight_offset(l),
                   s.grads + net.bias_offset(l), l == 0 ? nullptr : other, batch, in, out, options);
    std::swap(delta, other);
  }
  if (options.update) sgd(params.data(), s.grads, net.parameters(), lr, options);
}
// [/snippet]

// ---------------------------------------------------------------- the fused step

constexpr int kFusedThreads = 512;
constexpr int kMaxLayers = 8;
constexpr std::size_t kFusedSharedBytes = 48 * 1024 - 64;  // the rest: the static loss_sum

// The layer widths travel by value (a kernel cannot take a std::vector).
struct Widths {
  int layers;
  int size[kMaxLayers + 1];
};

// The sum of `v` over each aligned group of `group` lanes (a power of two up to 32), in every lane
// of the group: log2(group) exchanges instead of a chain of `group` additions.
__device__ __forceinline__ float group_sum(float v, int group) {
  for (int offset = group / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// How many lanes share one sum of `terms` terms when `items` sums are due at once: as many as the
// block has threads to spare (a power of two, at most a warp, no more than the terms need).
__device__ __forceinline__ int group_for(int items, int terms, int threads) {
  int group = 1;
  while (group < 32 && group < terms && items * group * 2 <= threads) group *= 2;
  return group;
}

// [snippet:fused_step_kernel]
// What it adds over layered_step: one launch instead of about 6 per layer. The block copies the
// parameters and the batch into shared memory and runs the CPU's loops with its threads sharing
// them, a __syncthreads() between the phases:
//   forward, one phase per layer (the last also computes the loss and the output delta),
//   backward, one phase per layer: that layer's gradients and the previous layer's delta.
// Two things keep the phases short, since at this size each one is a chain of dependent steps,
// not a pile of arithmetic: a sum with few items and many terms is shared by a group of lanes
// (group_sum), and updated parameters go straight to global memory while the shared copy stays as
// it was, so the previous layer's delta can read the old weights in the same phase. It works where
// everything fits one block's shared memory: a tiny network.
__global__ void __launch_bounds__(kFusedThreads)
    fused_step_kernel(float* params, const float* x, const float* t, float* loss, Widths net, int batch, float lr,
                      bool bce, int parameter_count, int widest) {
  extern __shared__ float p[];       // the parameters as they were before the step
  float* act = p + parameter_count;  // a[0] (the batch), a[1], ... a[L], batch × width each
  const int tid = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  int activations = 0;
  for (int l = 0; l <= net.layers; ++l) activations += batch * net.size[l];
  const int outputs = net.size[net.layers], count = batch * outputs;
  float* target = act + activations;  // t, batch × outputs
  float* delta = target + count;      // dL/dZ of the layer in hand, batch × widest
  float* previous = delta + batch * widest;
  __shared__ float loss_sum;
  if (tid == 0) loss_sum = 0.0f;
  for (int i = tid; i < parameter_count; i += threads) p[i] = params[i];
  for (int i = tid; i < batch * net.size[0]; i += threads) act[i] = x[i];
  for (int i = tid; i < count; i += threads) target[i] = t[i];
  __syncthreads();

  const float scale = 1.0f / static_cast<float>(count);
  float my_loss = 0.0f;
  int a_offset = 0, w_offset = 0;         // layer l's input activations and weights
  for (int l = 0; l < net.layers; ++l) {  // forward: a' = σ(W a + b), a group of lanes per output
    const int in = net.size[l], out = net.size[l + 1], items = batch * out;
    const float* w = p + w_offset;
    const float* b = w + out * in;
    const float* a = act + a_offset;
    float* next = act + a_offset + batch * in;
    const int group = group_for(items, in, threads), r = tid % group;
    for (int base = 0; base < items; base += threads / group) {  // the same trips for every lane
      const int i = base + tid / group, e = i / out, j = i % out;
      float z = 0.0f;
      if (i < items) {
        for (int k = r; k < in; k += group) z += w[j * in + k] * a[e * in + k];
      }
      z = group_sum(z, group);
      if (i < items && r == 0) {
        const float y = __frcp_rn(1.0f + expf(-(z + b[j])));  // = 1 / (1 + e^−z), correctly rounded
        next[i] = y;
        if (l == net.layers - 1) {  // the loss and dL/dZ of the output layer, as loss_and_delta
          const float ti = target[i];
          if (bce) {
            my_loss += -(ti * logf(fmaxf(y, 1e-7f)) + (1.0f - ti) * logf(fmaxf(1.0f - y, 1e-7f))) * scale;
            delta[i] = (y - ti) * scale;
          } else {
            my_loss += (y - ti) * (y - ti) * scale;
            delta[i] = 2.0f * (y - ti) * y * (1.0f - y) * scale;
          }
        }
      }
    }
    a_offset += batch * in;
    w_offset += out * in + out;
    if (l == net.layers - 1) {
      my_loss = group_sum(my_loss, 32);  // then one atomic per warp, not per element
      if (tid % 32 == 0) atomicAdd(&loss_sum, my_loss);
    }
    __syncthreads();
  }
  if (tid == 0) *loss = loss_sum;

  for (int l = net.layers - 1; l >= 0; --l) {  // backward
    const int in = net.size[l], out = net.size[l + 1];
    a_offset -= batch * in;
    w_offset -= out * in + out;
    const float* w = p + w_offset;
    const float* a = act + a_offset;
    if (l > 0) {  // the previous layer's delta: Δ' = (Δ · W) ⊙ a (1 − a), with the old weights
      const int items = batch * in, group = group_for(items, out, threads), r = tid % group;
      for (int base = 0; base < items; base += threads / group) {
        const int i = base + tid / group, e = i / in, k = i % in;
        float sum = 0.0f;
        if (i < items) {
          for (int j = r; j < out; j += group) sum += w[j * in + k] * delta[e * out + j];
        }
        sum = group_sum(sum, group);
        if (i < items && r == 0) previous[i] = sum * a[i] * (1.0f - a[i]);
      }
    }
    // The gradients dW = Δᵀ · a and db = Σ Δ, a sum over the batch each, and the update.
    const int items = out * in + out, group = group_for(items, batch, threads), r = tid % group;
    for (int base = 0; base < items; base += threads / group) {
      const int i = base + tid / group;
      const bool weight = i < out * in;
      const int j = weight ? i / in : i - out * in, k = weight ? i % in : 0;
      float grad = 0.0f;
      if (i < items) {
        for (int e = r; e < batch; e += group) grad += delta[e * out + j] * (weight ? a[e * in + k] : 1.0f);
      }
      grad = group_sum(grad, group);
      if (i < items && r == 0) params[w_offset + i] = p[w_offset + i] - lr * grad;
    }
    __syncthreads();
    float* swap = delta;
    delta = previous;
    previous = swap;
  }
}
// [/snippet]

namespace {

std::size_t fused_shared_bytes(const Layout& net, int batch) {
  std::size_t floats = net.parameters() + static_cast<std::size_t>(batch) * (2 * widest(net) + net.outputs());
  for (int s : net.sizes) floats += static_cast<std::size_t>(batch) * s;
  return floats * sizeof(float);
}

}  // namespace

bool fused_fits(const Layout& net, int batch) {
  return net.layers() <= kMaxLayers && fused_shared_bytes(net, batch) <= kFusedSharedBytes;
}

void fused_step(const Layout& net, std::span<float> params, std::span<const float> x, std::span<const float> t,
                int batch, float lr, Loss loss_kind, std::span<float> loss, int threads) {
  check(net, params, x, batch);
  if (threads < 32 || threads > kFusedThreads || threads % 32 != 0) {
    throw std::invalid_argument("mlp fused step: " + std::to_string(threads) +
                                " threads; the block must be whole warps, 32 to 512 threads");
  }
  if (loss.empty() || t.size() < static_cast<std::size_t>(batch) * static_cast<std::size_t>(net.outputs())) {
    throw std::invalid_argument("mlp: t must hold batch × outputs floats and loss one");
  }
  if (!fused_fits(net, batch)) {
    throw std::invalid_argument("mlp fused step: " + gpulab::mlp::to_string(net) + " with a batch of " +
                                std::to_string(batch) + " needs " + std::to_string(fused_shared_bytes(net, batch)) +
                                " bytes of shared memory; one block has 48 KB");
  }
  Widths widths{net.layers(), {}};
  for (int l = 0; l <= net.layers(); ++l) widths.size[l] = net.sizes[static_cast<std::size_t>(l)];
  fused_step_kernel<<<dim3(1), dim3(static_cast<unsigned int>(threads)), fused_shared_bytes(net, batch)>>>(
      params.data(), x.data(), t.data(), loss.data(), widths, batch, lr, loss_kind == Loss::bce,
      static_cast<int>(net.parameters()), widest(net));
  check_launch("fused_step_kernel", dim3(1), dim3(static_cast<unsigned int>(threads)), fused_shared_bytes(net, batch));
}

// ---------------------------------------------------------------- the fused step in registers

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
  const int tid = static_cast<int>(threadIdx.x);
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
  check(net, params, x, batch);
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
