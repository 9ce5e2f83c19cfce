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

#include <cstdint>

#include "common/launch.cuh"
#include "common/stored.cuh"
#include "mlp/mlp.hpp"

namespace gpulab::mlp {

namespace {

constexpr int kTile = 16;
// Split-K (gemm_tiled_splits): enough slices of k for about kSplitBlocks blocks, none shorter
// than kMinSlice.
constexpr int kSplitBlocks = 256, kMinSlice = 256;

}  // namespace

// [snippet:gemm_kernel]
// C (m × n) = op(A) · op(B), row-major, op(A) m × k and op(B) k × n. TA: A is stored k × m
// (transposed); TB: B is stored n × k. 16 × 16 tiles through shared memory, as in lesson 05.
// The sums are floats whatever the matrices are stored in: floats here, FP16 in lesson 16's
// mixed-precision step (as_float and stored_as below). A grid of several layers splits k: layer
// z sums k from z · k_slice on and writes its own C, m × n further on, for the caller to add
// (lesson 16's first linear layer has k = 2048 and, at 32 images, only 16 tiles of C).
template <bool TA, bool TB, typename A = float, typename B = float, typename C = float>
__global__ void gemm_kernel(const A* a, const B* b, C* c, int m, int n, int k, int k_slice) {
  __shared__ float as[kTile][kTile + 1], bs[kTile][kTile + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = static_cast<int>(blockIdx.y) * kTile + ty, col = static_cast<int>(blockIdx.x) * kTile + tx;
  const int k_begin = static_cast<int>(blockIdx.z) * k_slice, k_end = min(k, k_begin + k_slice);
  float sum = 0.0f;
  for (int k0 = k_begin; k0 < k_end; k0 += kTile) {
    const int ka = k0 + tx, kb = k0 + ty;
    as[ty][tx] = (row < m && ka < k_end) ? as_float(TA ? a[ka * m + row] : a[row * k + ka]) : 0.0f;
    bs[ty][tx] = (kb < k_end && col < n) ? as_float(TB ? b[col * k + kb] : b[kb * n + col]) : 0.0f;
    __syncthreads();
    for (int i = 0; i < kTile; ++i) sum += as[ty][i] * bs[i][tx];
    __syncthreads();
  }
  if (row < m && col < n) c[static_cast<std::size_t>(blockIdx.z) * m * n + row * n + col] = stored_as<C>(sum);
}
// [/snippet]

// A = σ(Z + b), in place; b is broadcast along the rows.
__global__ void bias_sigmoid_kernel(float* z, const float* bias, int rows, int cols) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) z[i] = 1.0f / (1.0f + expf(-(z[i] + bias[i % cols])));
}

// The mean loss (added into *loss, which starts at 0) and dL/dZ of the output layer, as
// loss_and_delta in mlp_cpu.hpp. Each block adds its terms first (a warp's by shuffles, then the
// warps' in order) and adds one total to *loss: one atomicAdd per block, not per element — 40,960
// atomics on one address took 75 µs of a 784 → 1024 → 10 step at batch 4096 (Nsight Compute).
__global__ void loss_delta_kernel(const float* y, const float* t, float* delta, float* loss, int count, bool bce) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float scale = 1.0f / static_cast<float>(count);
  float term = 0.0f;  // threads past the end add 0, but still reach the barrier
  if (i < count) {
    const float yi = y[i], ti = t[i];
    if (bce) {
      const float eps = 1e-7f;
      term = -(ti * logf(fmaxf(yi, eps)) + (1.0f - ti) * logf(fmaxf(1.0f - yi, eps)));
      delta[i] = (yi - ti) * scale;
    } else {
      term = (yi - ti) * (yi - ti);
      delta[i] = 2.0f * (yi - ti) * yi * (1.0f - yi) * scale;
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) term += __shfl_down_sync(0xffffffffu, term, offset);
  __shared__ float warp_terms[32];
  if (threadIdx.x % 32 == 0) warp_terms[threadIdx.x / 32] = term;
  __syncthreads();
  if (threadIdx.x == 0) {
    float block_sum = 0.0f;
    for (unsigned w = 0; w < blockDim.x / 32; ++w) block_sum += warp_terms[w];
    atomicAdd(loss, block_sum * scale);
  }
}

// db[j] = Σ_e Δ[e][j] (Δ stored in floats, or in FP16 by lesson 16's mixed step; the sum in
// float). A block of 32 × 32 threads takes 32 columns: thread (x, y) sums column x's rows y, y +
// 32, ... (a warp reads 32 neighbouring columns of a row: coalesced), then thread (x, 0) adds the
// 32 partial sums in order — the same order every run. One thread per column walking all 4096
// rows took 130–165 µs (32 blocks for 1024 columns, 1 for 10).
constexpr int kSumWidth = 32;
template <typename T = float>
__global__ void column_sums_kernel(const T* delta, float* db, int rows, int cols) {
  __shared__ float partial[kSumWidth][kSumWidth + 1];
  const int j = static_cast<int>(blockIdx.x) * kSumWidth + static_cast<int>(threadIdx.x);
  float sum = 0.0f;
  if (j < cols) {
#pragma unroll 8
    for (int e = static_cast<int>(threadIdx.y); e < rows; e += kSumWidth) sum += as_float(delta[e * cols + j]);
  }
  partial[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && j < cols) {
    float total = 0.0f;
    for (int y = 0; y < kSumWidth; ++y) total += partial[y][threadIdx.x];
    db[j] = total;
  }
}

// Δ' = G ⊙ A (1 − A), in place in G.
__global__ void sigmoid_derivative_kernel(float* g, const float* a, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) g[i] *= a[i] * (1.0f - a[i]);
}

__global__ void sgd_kernel(float* params, const float* grads, float lr, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) params[i] -= lr * grads[i];
}

namespace {

using gpulab::mlp::StepOptions;
cudaStream_t stream_of(const StepOptions& options) { return static_cast<cudaStream_t>(options.stream); }

template <bool TA, bool TB, typename A, typename B, typename C>
void launch_gemm(const A* a, const B* b, C* c, int m, int n, int k, void* stream, int splits = 1) {
  const int k_slice = std::max(1, (k + splits - 1) / splits);
  const dim3 grid(blocks_for(n, kTile), blocks_for(m, kTile), static_cast<unsigned int>(splits));
  gemm_kernel<TA, TB, A, B, C>
      <<<grid, dim3(kTile, kTile), 0, static_cast<cudaStream_t>(stream)>>>(a, b, c, m, n, k, k_slice);
  check_launch("gemm_kernel<TA, TB>", grid, dim3(kTile, kTile));
}

template <bool TA, bool TB>
void gemm(const float* a, const float* b, float* c, int m, int n, int k, const StepOptions& options) {
  if (options.gemm != nullptr) return options.gemm(TA, TB, a, b, c, m, n, k, options.stream);
  launch_gemm<TA, TB>(a, b, c, m, n, k, options.stream);
}

// The GEMM on any storage, its transposes chosen at run time.
template <typename A, typename B, typename C>
void gemm_any(bool ta, bool tb, const A* a, const B* b, C* c, int m, int n, int k, void* stream, int splits = 1) {
  if (ta) {
    return tb ? launch_gemm<true, true>(a, b, c, m, n, k, stream, splits)
              : launch_gemm<true, false>(a, b, c, m, n, k, stream, splits);
  }
  return tb ? launch_gemm<false, true>(a, b, c, m, n, k, stream, splits)
            : launch_gemm<false, false>(a, b, c, m, n, k, stream, splits);
}

// The layer's own kernels: A = σ(Z + b) in place, and db = Δ's column sums.
void bias_sigmoid(float* z, const float* bias, int rows, int cols, const StepOptions& options) {
  bias_sigmoid_kernel<<<blocks_for(static_cast<long>(rows) * cols, 256), 256, 0, stream_of(options)>>>(z, bias, rows,
                                                                                                       cols);
  check_launch("bias_sigmoid_kernel", blocks_for(static_cast<long>(rows) * cols, 256), 256);
}
template <typename T>
void column_sums(const T* delta, float* db, int rows, int cols, const StepOptions& options) {
  const dim3 block(kSumWidth, kSumWidth);
  column_sums_kernel<<<blocks_for(cols, kSumWidth), block, 0, stream_of(options)>>>(delta, db, rows, cols);
  check_launch("column_sums_kernel", blocks_for(cols, kSumWidth), block);
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
  p += static_cast<std::size_t>(batch) * net.widest();
  s.other = p;
  p += static_cast<std::size_t>(batch) * net.widest();
  s.grads = p;
  return s;
}

}  // namespace

void gemm_tiled(bool ta, bool tb, const float* a, const float* b, float* c, int m, int n, int k, void* stream,
                int splits) {
  gemm_any(ta, tb, a, b, c, m, n, k, stream, splits);
}

void sum_columns(const float* x, float* sums, int rows, int cols, void* stream) {
  StepOptions options;
  options.stream = stream;
  column_sums(x, sums, rows, cols, options);
}

void gemm_tiled(bool ta, bool tb, const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* c, int m, int n, int k,
                void* stream) {
  gemm_any(ta, tb, kernel_view(a), kernel_view(b), kernel_view(c), m, n, k, stream);
}

void gemm_tiled(bool ta, bool tb, const std::uint16_t* a, const std::uint16_t* b, float* c, int m, int n, int k,
                void* stream, int splits) {
  gemm_any(ta, tb, kernel_view(a), kernel_view(b), c, m, n, k, stream, splits);
}

void sum_columns(const std::uint16_t* x, float* sums, int rows, int cols, void* stream) {
  StepOptions options;
  options.stream = stream;
  column_sums(kernel_view(x), sums, rows, cols, options);
}

int gemm_tiled_splits(int m, int n, int k) {
  const int tiles = blocks_for(m, kTile) * blocks_for(n, kTile);
  return std::max(1, std::min(kSplitBlocks / std::max(1, tiles), k / kMinSlice));
}

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
  return floats + 2 * static_cast<std::size_t>(batch) * net.widest();
}

// [snippet:layered_step]
void layered_step(const Layout& net, std::span<float> params, std::span<const float> x, std::span<const float> t,
                  int batch, float lr, Loss loss_kind, std::span<float> workspace, std::span<float> loss,
                  const StepOptions& options) {
  check_step_buffers(net, params, x, batch);
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
  if (options.loss_queued) options.loss_queued();
  float* delta = s.delta;
  float* other = s.other;
  for (int l = net.layers() - 1; l >= 0; --l) {  // backward
    const int in = net.sizes[static_cast<std::size_t>(l)], out = net.sizes[static_cast<std::size_t>(l) + 1];
    const float* layer_input = l == 0 ? x.data() : s.activations[static_cast<std::size_t>(l) - 1];
    backward_layer(delta, layer_input, params.data() + net.weight_offset(l), s.grads + net.weight_offset(l),
                   s.grads + net.bias_offset(l), l == 0 ? nullptr : other, batch, in, out, options);
    if (options.gradients_queued) options.gradients_queued(l);
    std::swap(delta, other);
  }
  if (options.update) sgd(params.data(), s.grads, net.parameters(), lr, options);
}
// [/snippet]

}  // namespace gpulab::mlp
