// The CNN's layers on the GPU, forward and backward, each the CPU's loop (cnn_cpu.hpp) with one
// thread per output it writes — the first, plain rung; lessons 05 and 06 show the faster ones.
//
//   conv3x3_relu_kernel        one output each: its 3 × 3 window in every channel, + bias, ReLU
//   max_pool2_kernel           one pooled output each, and where it came from
//   linear                     lesson 07's tiled GEMM (y = x · Wᵀ), then bias_act_kernel
//   softmax_xent_kernel        one image each: a stable softmax, the loss, dL/dlogits
//   pool_relu_backward_kernel  one window each: the gradient to the argmax, 0 to the rest
//   conv_weight_grad_kernel    one block per (filter, channel): a sum over the batch and the image
//   conv_data_grad_kernel      one input each: the transposed convolution
//   adam_kernel                one parameter each
//
// Plain CUDA, built for the GPU and for the emulator.
#include <stdexcept>

#include "cnn/cnn_gpu.hpp"
#include "common/launch.cuh"
#include "mlp/mlp.hpp"

namespace gpulab::cnn {

namespace {

constexpr int kBlock = 256;

cudaStream_t as_stream(void* stream) { return static_cast<cudaStream_t>(stream); }

}  // namespace

// ---------------------------------------------------------------- forward

// [snippet:cnn_conv_forward]
// One thread per output (n, k, i, j): its window of 3 × 3 inputs in each of the channels, the
// rows and columns outside the image counting as 0 (padding 1), plus the bias, then ReLU.
__global__ void conv3x3_relu_kernel(const float* x, const float* w, const float* b, float* y, int batch, int channels,
                                    int filters, int side) {
  const std::size_t plane = std::size_t(side) * side;
  const std::size_t o = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (o >= std::size_t(batch) * filters * plane) return;
  const int j = int(o % side), i = int(o / side % side);
  const int k = int(o / plane % filters), n = int(o / plane / filters);
  float z = b[k];
  for (int c = 0; c < channels; ++c) {
    const float* in = x + (std::size_t(n) * channels + c) * plane;
    const float* f = w + (std::size_t(k) * channels + c) * 9;
    for (int r = 0; r < 3; ++r) {
      const int row = i + r - 1;
      if (row < 0 || row >= side) continue;
      for (int s = 0; s < 3; ++s) {
        const int col = j + s - 1;
        if (col >= 0 && col < side) z += f[r * 3 + s] * in[row * side + col];
      }
    }
  }
  y[o] = fmaxf(z, 0.0f);
}
// [/snippet]

// One thread per pooled output: the largest of its 2 × 2 window, and its index in x (the first
// of equal values in row-major order, as the CPU's).
__global__ void max_pool2_kernel(const float* x, float* y, int* at, int planes, int side) {
  const int half = side / 2;
  const std::size_t o = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (o >= std::size_t(planes) * half * half) return;
  const int j = int(o % half), i = int(o / half % half), p = int(o / half / half);
  int best = (p * side + 2 * i) * side + 2 * j;
  for (int di = 0; di < 2; ++di) {
    for (int dj = 0; dj < 2; ++dj) {
      const int k = (p * side + 2 * i + di) * side + 2 * j + dj;
      if (x[k] > x[best]) best = k;
    }
  }
  y[o] = x[best];
  at[o] = best;
}

// y[n][o] += b[o], then ReLU where asked: the GEMM's epilogue.
__global__ void bias_act_kernel(float* y, const float* b, int rows, int cols, bool relu) {
  const std::size_t e = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (e >= std::size_t(rows) * cols) return;
  const float z = y[e] + b[e % cols];
  y[e] = relu ? fmaxf(z, 0.0f) : z;
}

// [snippet:cnn_softmax]
// One thread per image: the largest logit first, so that every exp is of a number ≤ 0 and none
// overflows; then the loss −log p[label] = log Σ exp(z − top) − (z[label] − top), added into the
// mean, and dL/dz = (p − one-hot) / batch.
__global__ void softmax_xent_kernel(const float* logits, const int* labels, float* dlogits, float* loss, int batch,
                                    int classes) {
  const int n = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (n >= batch) return;
  const float* z = logits + std::size_t(n) * classes;
  float top = z[0];
  for (int c = 1; c < classes; ++c) top = fmaxf(top, z[c]);
  float sum = 0.0f;
  for (int c = 0; c < classes; ++c) sum += expf(z[c] - top);
  const int label = labels[n];
  atomicAdd(loss, (logf(sum) - (z[label] - top)) / float(batch));
  for (int c = 0; c < classes; ++c) {
    dlogits[std::size_t(n) * classes + c] = (expf(z[c] - top) / sum - (c == label ? 1.0f : 0.0f)) / float(batch);
  }
}
// [/snippet]

// ---------------------------------------------------------------- backward

// g ⊙ (mask > 0): the ReLU's backward pass, in place.
__global__ void relu_mask_kernel(float* g, const float* mask, std::size_t count) {
  const std::size_t e = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (e < count && !(mask[e] > 0.0f)) g[e] = 0.0f;
}

// One thread per pooled output: its window's four gradients, dy at the argmax where the pooled
// value (the ReLU's output there) was positive, 0 elsewhere. Windows do not overlap, so every
// element of dx is written once, and nothing needs zeroing first.
__global__ void pool_relu_backward_kernel(const float* dy, const int* at, const float* pooled, float* dx, int planes,
                                          int side) {
  const int half = side / 2;
  const std::size_t o = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (o >= std::size_t(planes) * half * half) return;
  const int j = int(o % half), i = int(o / half % half), p = int(o / half / half);
  const float g = pooled[o] > 0.0f ? dy[o] : 0.0f;
  for (int di = 0; di < 2; ++di) {
    for (int dj = 0; dj < 2; ++dj) {
      const int k = (p * side + 2 * i + di) * side + 2 * j + dj;
      dx[k] = k == at[o] ? g : 0.0f;
    }
  }
}

// [snippet:cnn_weight_grad]
// One block per (filter k, channel c): dW[k][c][r][s] = Σ over images n and outputs (i, j) of
// dz[n][k][i][j] · x[n][c][i + r − 1][j + s − 1]. Each thread sums its share of the positions
// into 9 registers (and the bias's sum, in channel 0's blocks), then the block adds its threads'
// sums in shared memory, halving the active threads each step: a fixed order, the same result
// every run.
__global__ void conv_weight_grad_kernel(const float* x, const float* dz, float* dw, float* db, int batch, int channels,
                                        int filters, int side) {
  __shared__ float partial[10][kBlock];
  const int k = int(blockIdx.x) / channels, c = int(blockIdx.x) % channels;
  const int t = int(threadIdx.x);
  const std::size_t plane = std::size_t(side) * side;
  float sum[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (std::size_t e = t; e < std::size_t(batch) * plane; e += kBlock) {
    const int n = int(e / plane), i = int(e % plane) / side, j = int(e % plane) % side;
    const float g = dz[(std::size_t(n) * filters + k) * plane + e % plane];
    const float* in = x + (std::size_t(n) * channels + c) * plane;
    for (int r = 0; r < 3; ++r) {
      const int row = i + r - 1;
      if (row < 0 || row >= side) continue;
      for (int s = 0; s < 3; ++s) {
        const int col = j + s - 1;
        if (col >= 0 && col < side) sum[r * 3 + s] += g * in[row * side + col];
      }
    }
    sum[9] += g;
  }
  for (int q = 0; q < 10; ++q) partial[q][t] = sum[q];
  __syncthreads();
  for (int stride = kBlock / 2; stride > 0; stride /= 2) {
    if (t < stride) {
      for (int q = 0; q < 10; ++q) partial[q][t] += partial[q][t + stride];
    }
    __syncthreads();
  }
  if (t < 9) dw[(std::size_t(k) * channels + c) * 9 + t] = partial[t][0];
  if (t == 9 && c == 0) db[k] = partial[9][0];
}
// [/snippet]

// One thread per input (n, c, i, j): dx = Σ over filters k and taps (r, s) of dz[n][k][i − r + 1]
// [j − s + 1] · w[k][c][r][s], the outputs whose windows held this input.
__global__ void conv_data_grad_kernel(const float* w, const float* dz, float* dx, int batch, int channels, int filters,
                                      int side) {
  const std::size_t plane = std::size_t(side) * side;
  const std::size_t e = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (e >= std::size_t(batch) * channels * plane) return;
  const int j = int(e % side), i = int(e / side % side);
  const int c = int(e / plane % channels), n = int(e / plane / channels);
  float sum = 0.0f;
  for (int k = 0; k < filters; ++k) {
    const float* d = dz + (std::size_t(n) * filters + k) * plane;
    const float* f = w + (std::size_t(k) * channels + c) * 9;
    for (int r = 0; r < 3; ++r) {
      const int row = i - r + 1;
      if (row < 0 || row >= side) continue;
      for (int s = 0; s < 3; ++s) {
        const int col = j - s + 1;
        if (col >= 0 && col < side) sum += d[row * side + col] * f[r * 3 + s];
      }
    }
  }
  dx[e] = sum;
}

// [snippet:cnn_adam]
// One thread per parameter: the moments follow g and g², are corrected for starting at 0
// (c1 = 1 − β1ᵗ, c2 = 1 − β2ᵗ), and the parameter moves by rate · m̂ / (√v̂ + ε).
__global__ void adam_kernel(float* params, const float* grads, float* m, float* v, std::size_t count, float rate,
                            float beta1, float beta2, float epsilon, float c1, float c2) {
  const std::size_t e = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (e >= count) return;
  const float g = grads[e];
  const float mean = beta1 * m[e] + (1.0f - beta1) * g;
  const float square = beta2 * v[e] + (1.0f - beta2) * g * g;
  m[e] = mean;
  v[e] = square;
  params[e] -= rate * (mean / c1) / (sqrtf(square / c2) + epsilon);
}
// [/snippet]

// ---------------------------------------------------------------- launchers

void conv3x3_relu(const float* x, const float* w, const float* b, float* y, int batch, int channels, int filters,
                  int side, void* stream) {
  const std::size_t outputs = std::size_t(batch) * filters * side * side;
  if (outputs == 0) return;
  conv3x3_relu_kernel<<<blocks_for(outputs, kBlock), kBlock, 0, as_stream(stream)>>>(x, w, b, y, batch, channels,
                                                                                     filters, side);
  check_launch("conv3x3_relu_kernel", blocks_for(outputs, kBlock), kBlock);
}

void max_pool2(const float* x, float* y, int* at, int planes, int side, void* stream) {
  const std::size_t outputs = std::size_t(planes) * (side / 2) * (side / 2);
  if (outputs == 0) return;
  max_pool2_kernel<<<blocks_for(outputs, kBlock), kBlock, 0, as_stream(stream)>>>(x, y, at, planes, side);
  check_launch("max_pool2_kernel", blocks_for(outputs, kBlock), kBlock);
}

void linear(const float* x, const float* w, const float* b, float* y, int batch, int in, int out, bool relu,
            void* stream) {
  if (batch == 0 || out == 0) return;
  mlp::gemm_tiled(false, true, x, w, y, batch, out, in, stream);  // y = x · Wᵀ
  const std::size_t count = std::size_t(batch) * out;
  bias_act_kernel<<<blocks_for(count, kBlock), kBlock, 0, as_stream(stream)>>>(y, b, batch, out, relu);
  check_launch("bias_act_kernel", blocks_for(count, kBlock), kBlock);
}

void softmax_cross_entropy(const float* logits, const int* labels, float* dlogits, float* loss, int batch, int classes,
                           void* stream) {
  GPULAB_CUDA_CHECK(cudaMemsetAsync(loss, 0, sizeof(float), as_stream(stream)));  // the images' terms add into it
  if (batch == 0) return;
  softmax_xent_kernel<<<blocks_for(batch, kBlock), kBlock, 0, as_stream(stream)>>>(logits, labels, dlogits, loss, batch,
                                                                                   classes);
  check_launch("softmax_xent_kernel", blocks_for(batch, kBlock), kBlock);
}

void linear_backward(const float* x, const float* w, const float* dy, float* dw, float* db, float* dx,
                     const float* mask, int batch, int in, int out, void* stream) {
  mlp::gemm_tiled(true, false, dy, x, dw, out, in, batch, stream);  // dW = dyᵀ · x
  mlp::sum_columns(dy, db, batch, out, stream);
  if (dx == nullptr || batch == 0) return;
  mlp::gemm_tiled(false, false, dy, w, dx, batch, in, out, stream);  // dx = dy · W
  if (mask == nullptr) return;
  const std::size_t count = std::size_t(batch) * in;
  relu_mask_kernel<<<blocks_for(count, kBlock), kBlock, 0, as_stream(stream)>>>(dx, mask, count);
  check_launch("relu_mask_kernel", blocks_for(count, kBlock), kBlock);
}

void max_pool2_relu_backward(const float* dy, const int* at, const float* pooled, float* dx, int planes, int side,
                             void* stream) {
  const std::size_t outputs = std::size_t(planes) * (side / 2) * (side / 2);
  if (outputs == 0) return;
  pool_relu_backward_kernel<<<blocks_for(outputs, kBlock), kBlock, 0, as_stream(stream)>>>(dy, at, pooled, dx, planes,
                                                                                           side);
  check_launch("pool_relu_backward_kernel", blocks_for(outputs, kBlock), kBlock);
}

void conv3x3_backward(const float* x, const float* w, const float* dz, float* dw, float* db, float* dx, int batch,
                      int channels, int filters, int side, void* stream) {
  if (filters == 0 || channels == 0) return;
  const auto blocks = static_cast<unsigned int>(filters * channels);
  conv_weight_grad_kernel<<<blocks, kBlock, 0, as_stream(stream)>>>(x, dz, dw, db, batch, channels, filters, side);
  check_launch("conv_weight_grad_kernel", blocks, kBlock);
  const std::size_t inputs = std::size_t(batch) * channels * side * side;
  if (dx == nullptr || inputs == 0) return;
  conv_data_grad_kernel<<<blocks_for(inputs, kBlock), kBlock, 0, as_stream(stream)>>>(w, dz, dx, batch, channels,
                                                                                      filters, side);
  check_launch("conv_data_grad_kernel", blocks_for(inputs, kBlock), kBlock);
}

void adam(float* params, const float* grads, float* m, float* v, std::size_t count, float rate, float beta1,
          float beta2, float epsilon, float c1, float c2, void* stream) {
  if (count == 0) return;
  adam_kernel<<<blocks_for(count, kBlock), kBlock, 0, as_stream(stream)>>>(params, grads, m, v, count, rate, beta1,
                                                                           beta2, epsilon, c1, c2);
  check_launch("adam_kernel", blocks_for(count, kBlock), kBlock);
}

}  // namespace gpulab::cnn
