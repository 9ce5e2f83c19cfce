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

#include "common/target.cuh"
#include "mlp/mlp.hpp"

namespace gpulab::GPULAB_TARGET::mlp {

namespace {

constexpr int kTile = 16;

unsigned int blocks_of(long items, int block) { return static_cast<unsigned int>((items + block - 1) / block); }

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

__global__ void copy_kernel(const float* from, float* to, int count) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < count) to[i] = from[i];
}

__global__ void zero_kernel(float* p, int count) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < count) p[i] = 0.0f;
}

namespace {

template <bool TA, bool TB>
void gemm(const float* a, const float* b, float* c, int m, int n, int k) {
  const dim3 grid(blocks_of(n, kTile), blocks_of(m, kTile));
  GPULAB_LAUNCH((gemm_kernel<TA, TB>), (LaunchConfig{grid, dim3(kTile, kTile)}), a, b, c, m, n, k);
}

LaunchConfig elementwise(long count) { return LaunchConfig{dim3(blocks_of(count, 256)), dim3(256)}; }

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

// The forward pass into the scratch activations; returns the output layer's.
const float* forward(const Layout& net, const float* params, const float* x, int batch, const Scratch& s) {
  const float* input = x;
  for (int l = 0; l < net.layers(); ++l) {
    const int in = net.sizes[static_cast<std::size_t>(l)], out = net.sizes[static_cast<std::size_t>(l) + 1];
    float* a = s.activations[static_cast<std::size_t>(l)];
    gemm<false, true>(input, params + net.weight_offset(l), a, batch, out, in);  // Z = A · Wᵀ
    GPULAB_LAUNCH(bias_sigmoid_kernel, elementwise(static_cast<long>(batch) * out), a, params + net.bias_offset(l),
                  batch, out);
    input = a;
  }
  return input;
}

}  // namespace

std::size_t step_workspace(const Layout& net, int batch) {
  std::size_t floats = net.parameters();
  for (int l = 1; l <= net.layers(); ++l)
    floats += static_cast<std::size_t>(batch) * net.sizes[static_cast<std::size_t>(l)];
  return floats + 2 * static_cast<std::size_t>(batch) * widest(net);
}

// [snippet:layered_step]
void layered_step(const Layout& net, std::span<float> params, std::span<const float> x, std::span<const float> t,
                  int batch, float lr, Loss loss_kind, std::span<float> workspace, std::span<float> loss) {
  check(net, params, x, batch);
  if (loss.empty() || t.size() < static_cast<std::size_t>(batch) * static_cast<std::size_t>(net.outputs())) {
    throw std::invalid_argument("mlp: t must hold batch × outputs floats and loss one");
  }
  GPULAB_LAUNCH(zero_kernel, elementwise(1), loss.data(), 1);
  if (batch == 0) return;
  const Scratch s = scratch_of(net, batch, workspace);
  const float* y = forward(net, params.data(), x.data(), batch, s);
  const int outputs = batch * net.outputs();
  GPULAB_LAUNCH(loss_delta_kernel, elementwise(outputs), y, t.data(), s.delta, loss.data(), outputs,
                loss_kind == Loss::bce);
  float* delta = s.delta;
  float* other = s.other;
  for (int l = net.layers() - 1; l >= 0; --l) {
    const int in = net.sizes[static_cast<std::size_t>(l)], out = net.sizes[static_cast<std::size_t>(l) + 1];
    const float* input = l == 0 ? x.data() : s.activations[static_cast<std::size_t>(l) - 1];
    gemm<true, false>(delta, input, s.grads + net.weight_offset(l), out, in, batch);  // dW = Δᵀ · A
    GPULAB_LAUNCH(column_sums_kernel, elementwise(out), delta, s.grads + net.bias_offset(l), batch, out);
    if (l == 0) break;
    gemm<false, false>(delta, params.data() + net.weight_offset(l), other, batch, in, out);  // Δ · W
    GPULAB_LAUNCH(sigmoid_derivative_kernel, elementwise(static_cast<long>(batch) * in), other, input, batch * in);
    std::swap(delta, other);
  }
  const int count = static_cast<int>(net.parameters());
  GPULAB_LAUNCH(sgd_kernel, elementwise(count), params.data(), s.grads, lr, count);
}
// [/snippet]

void predict(const Layout& net, std::span<const float> params, std::span<const float> x, int count,
             std::span<float> out, std::span<float> workspace) {
  check(net, params, x, count);
  if (out.size() < static_cast<std::size_t>(count) * static_cast<std::size_t>(net.outputs())) {
    throw std::invalid_argument("mlp: out must hold count × outputs floats");
  }
  if (count == 0) return;
  const Scratch s = scratch_of(net, count, workspace);
  const float* y = forward(net, params.data(), x.data(), count, s);
  const int outputs = count * net.outputs();
  GPULAB_LAUNCH(copy_kernel, elementwise(outputs), y, out.data(), outputs);
}

// ---------------------------------------------------------------- the fused step

constexpr int kFusedThreads = 512;
constexpr int kMaxLayers = 8;
constexpr std::size_t kFusedSharedBytes = 48 * 1024 - 64;  // the rest: the static loss_sum

// The layer widths travel by value (a kernel cannot take a std::vector).
struct Widths {
  int layers;
  int size[kMaxLayers + 1];
};

// The sum of `v` over the 32 lanes of a warp, in every lane.
__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// [snippet:fused_step_kernel]
// What it adds over layered_step: one launch instead of about 6 per layer. The block copies the
// parameters and the batch into shared memory, then runs the CPU's loops with the block's
// threads sharing each one (an output or a delta per thread, a parameter's gradient per warp),
// __syncthreads() between them, and writes the parameters back. It works where everything fits one block's shared
// memory: a tiny network. Weights are updated in place once the previous layer's delta, which
// reads them, is done, so it computes the same as the CPU's gradient-then-update.
__global__ void __launch_bounds__(kFusedThreads)
    fused_step_kernel(float* params, const float* x, const float* t, float* loss, Widths net, int batch, float lr,
                      bool bce, int parameter_count, int widest) {
  float* shared = dynamic_shared<float>();
  float* p = shared;                 // the parameters
  float* act = p + parameter_count;  // a[0] (the batch), a[1], ... a[L], batch × width each
  const int tid = static_cast<int>(threadIdx.x), threads = static_cast<int>(blockDim.x);
  const int warp = tid / 32, lane = tid % 32, warps = threads / 32;
  int act_offset[kMaxLayers + 1], w_offset[kMaxLayers], b_offset[kMaxLayers];
  int total = 0, poffset = 0;
  for (int l = 0; l <= net.layers; ++l) {
    act_offset[l] = total;
    total += batch * net.size[l];
    if (l < net.layers) {
      w_offset[l] = poffset;
      b_offset[l] = poffset + net.size[l + 1] * net.size[l];
      poffset = b_offset[l] + net.size[l + 1];
    }
  }
  float* delta = act + total;  // batch × widest
  float* previous = delta + batch * widest;
  __shared__ float loss_sum;
  if (tid == 0) loss_sum = 0.0f;
  for (int i = tid; i < parameter_count; i += threads) p[i] = params[i];
  for (int i = tid; i < batch * net.size[0]; i += threads) act[i] = x[i];
  __syncthreads();

  for (int l = 0; l < net.layers; ++l) {  // forward
    const int in = net.size[l], out = net.size[l + 1];
    const float* w = p + w_offset[l];
    const float* a = act + act_offset[l];
    for (int i = tid; i < batch * out; i += threads) {
      const int e = i / out, j = i % out;
      float z = p[b_offset[l] + j];
      for (int k = 0; k < in; ++k) z += w[j * in + k] * a[e * in + k];
      act[act_offset[l + 1] + i] = 1.0f / (1.0f + expf(-z));
    }
    __syncthreads();
  }

  const int outputs = net.size[net.layers], count = batch * outputs;  // loss and the output delta
  const float scale = 1.0f / static_cast<float>(count);
  float my_loss = 0.0f;
  for (int i = tid; i < count; i += threads) {
    const float yi = act[act_offset[net.layers] + i], ti = t[i];
    float term;
    if (bce) {
      term = -(ti * logf(fmaxf(yi, 1e-7f)) + (1.0f - ti) * logf(fmaxf(1.0f - yi, 1e-7f)));
      delta[i] = (yi - ti) * scale;
    } else {
      term = (yi - ti) * (yi - ti);
      delta[i] = 2.0f * (yi - ti) * yi * (1.0f - yi) * scale;
    }
    my_loss += term * scale;
  }
  my_loss = warp_sum(my_loss);  // then one atomic per warp, not per element
  if (lane == 0) atomicAdd(&loss_sum, my_loss);
  __syncthreads();

  for (int l = net.layers - 1; l >= 0; --l) {  // backward, updating each layer once it is used
    const int in = net.size[l], out = net.size[l + 1];
    float* w = p + w_offset[l];
    const float* a = act + act_offset[l];
    if (l > 0) {  // the previous layer's delta, with the weights before their update
      for (int i = tid; i < batch * in; i += threads) {
        const int e = i / in, k = i % in;
        float sum = 0.0f;
        for (int j = 0; j < out; ++j) sum += w[j * in + k] * delta[e * out + j];
        previous[i] = sum * a[i] * (1.0f - a[i]);
      }
    }
    __syncthreads();
    // dW and db, applied at once: one warp per parameter, its lanes sharing the sum over the
    // batch (a chain of `batch` additions in one thread would be the kernel's longest path).
    for (int i = warp; i < out * in + out; i += warps) {
      const bool weight = i < out * in;
      const int j = weight ? i / in : i - out * in, k = weight ? i % in : 0;
      float grad = 0.0f;
      for (int e = lane; e < batch; e += 32) grad += delta[e * out + j] * (weight ? a[e * in + k] : 1.0f);
      grad = warp_sum(grad);
      if (lane == 0) (weight ? w[i] : p[b_offset[l] + j]) -= lr * grad;
    }
    __syncthreads();
    float* swap = delta;
    delta = previous;
    previous = swap;
  }
  for (int i = tid; i < parameter_count; i += threads) params[i] = p[i];
  if (tid == 0) *loss = loss_sum;
}
// [/snippet]

namespace {

std::size_t fused_shared_bytes(const Layout& net, int batch) {
  std::size_t floats = net.parameters() + 2 * static_cast<std::size_t>(batch) * widest(net);
  for (int s : net.sizes) floats += static_cast<std::size_t>(batch) * s;
  return floats * sizeof(float);
}

}  // namespace

bool fused_fits(const Layout& net, int batch) {
  return net.layers() <= kMaxLayers && fused_shared_bytes(net, batch) <= kFusedSharedBytes;
}

void fused_step(const Layout& net, std::span<float> params, std::span<const float> x, std::span<const float> t,
                int batch, float lr, Loss loss_kind, std::span<float> loss) {
  check(net, params, x, batch);
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
  GPULAB_LAUNCH(fused_step_kernel, (LaunchConfig{dim3(1), dim3(kFusedThreads), fused_shared_bytes(net, batch)}),
                params.data(), x.data(), t.data(), loss.data(), widths, batch, lr, loss_kind == Loss::bce,
                static_cast<int>(net.parameters()), widest(net));
}

}  // namespace gpulab::GPULAB_TARGET::mlp
