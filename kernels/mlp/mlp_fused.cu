// The tiny network's whole training step in one kernel and one block (what layered_step does in
// about 6 launches per layer, mlp_layered.cu): parameters, activations and deltas in shared memory.
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/launch.cuh"
#include "mlp/mlp.hpp"

namespace gpulab::mlp {

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
  const int tid = threadIdx.x, threads = blockDim.x;
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
  std::size_t floats = net.parameters() + static_cast<std::size_t>(batch) * (2 * net.widest() + net.outputs());
  for (int s : net.sizes) floats += static_cast<std::size_t>(batch) * s;
  return floats * sizeof(float);
}

}  // namespace

bool fused_fits(const Layout& net, int batch) {
  return net.layers() <= kMaxLayers && fused_shared_bytes(net, batch) <= kFusedSharedBytes;
}

void fused_step(const Layout& net, std::span<float> params, std::span<const float> x, std::span<const float> t,
                int batch, float lr, Loss loss_kind, std::span<float> loss, int threads) {
  check_step_buffers(net, params, x, batch);
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
      static_cast<int>(net.parameters()), net.widest());
  check_launch("fused_step_kernel", dim3(1), dim3(static_cast<unsigned int>(threads)), fused_shared_bytes(net, batch));
}

}  // namespace gpulab::mlp
