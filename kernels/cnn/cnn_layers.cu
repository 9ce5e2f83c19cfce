// The CNN's layers on the GPU, forward and backward, each the CPU's loop (cnn_cpu.hpp) with one
// thread per output it writes — the first, plain rung; lessons 05 and 06 show the faster ones —
// except where that left the GPU too few blocks (the sums over the batch: shares, split-K).
//
//   conv3x3_relu_kernel        one output each: its 3 × 3 window in every channel, + bias, ReLU
//   max_pool2_kernel           one pooled output each, and where it came from
//   (the linear layers, a GEMM and its epilogue: cnn_linear.cu)
//   softmax_xent_kernel        one image each: a stable softmax, the loss, dL/dlogits
//   pool_relu_backward_kernel  one window each: the gradient to the argmax, 0 to the rest
//   conv_weight_grad_kernel    one block per (filter, channel, share of the batch): its sums over
//                              the share's images, then conv_grad_shares_kernel adds the shares
//                              (a warp per total)
//   conv_data_grad_kernel      one input each: the transposed convolution
//   (Adam, the optimiser: cnn_adam.cu)
//
// Each kernel is written once for both steps: its activations and their gradients stored as T —
// float in the FP32 step, __half in the mixed-precision one (cnn_mixed.cu) — and every sum in
// float (common/stored.cuh). Parameters' gradients are floats in both. Plain CUDA, built for the
// GPU and for the emulator.
#include <stdexcept>

#include "cnn/cnn_gpu.hpp"
#include "common/launch.cuh"
#include "common/stored.cuh"

namespace gpulab::cnn {

namespace {

constexpr int kBlock = 256;

cudaStream_t as_stream(void* stream) { return static_cast<cudaStream_t>(stream); }

}  // namespace

// ---------------------------------------------------------------- forward

// [snippet:cnn_conv_forward]
// One thread per output (n, k, i, j): its window of 3 × 3 inputs in each of the channels, the
// rows and columns outside the image counting as 0 (padding 1), plus the bias, then ReLU.
template <typename In, typename T>
__global__ void conv3x3_relu_kernel(const In* x, const T* w, const T* b, T* y, int batch, int channels, int filters,
                                    int side) {
  const std::size_t plane = std::size_t(side) * side;
  const std::size_t o = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (o >= std::size_t(batch) * filters * plane) return;
  const int j = int(o % side), i = int(o / side % side);
  const int k = int(o / plane % filters), n = int(o / plane / filters);
  float z = as_float(b[k]);
  for (int c = 0; c < channels; ++c) {
    const In* in = x + (std::size_t(n) * channels + c) * plane;
    const T* f = w + (std::size_t(k) * channels + c) * 9;
    for (int r = 0; r < 3; ++r) {
      const int row = i + r - 1;
      if (row < 0 || row >= side) continue;
      for (int s = 0; s < 3; ++s) {
        const int col = j + s - 1;
        if (col >= 0 && col < side) z += as_float(f[r * 3 + s]) * as_float(in[row * side + col]);
      }
    }
  }
  y[o] = stored_as<T>(fmaxf(z, 0.0f));
}
// [/snippet]

// One thread per pooled output: the largest of its 2 × 2 window, and its index in x (the first
// of equal values in row-major order, as the CPU's).
template <typename T>
__global__ void max_pool2_kernel(const T* x, T* y, int* at, int planes, int side) {
  const int half = side / 2;
  const std::size_t o = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (o >= std::size_t(planes) * half * half) return;
  const int j = int(o % half), i = int(o / half % half), p = int(o / half / half);
  int best = (p * side + 2 * i) * side + 2 * j;
  for (int di = 0; di < 2; ++di) {
    for (int dj = 0; dj < 2; ++dj) {
      const int k = (p * side + 2 * i + di) * side + 2 * j + dj;
      if (as_float(x[k]) > as_float(x[best])) best = k;
    }
  }
  y[o] = x[best];
  at[o] = best;
}

// [snippet:cnn_softmax]
// One thread per image: the largest logit first, so that every exp is of a number ≤ 0 and none
// overflows; then the loss −log p[label] = log Σ exp(z − top) − (z[label] − top), added into the
// mean, and dL/dz = (p − one-hot) / batch — times the loss scale where there is one (the mixed
// step's: its small gradients scaled up out of FP16's underflow).
template <typename T>
__global__ void softmax_xent_kernel(const T* logits, const int* labels, T* dlogits, float* loss, const float* scale,
                                    int batch, int classes) {
  const std::size_t n = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (n >= std::size_t(batch)) return;
  const T* z = logits + n * classes;
  float top = as_float(z[0]);
  for (int c = 1; c < classes; ++c) top = fmaxf(top, as_float(z[c]));
  float sum = 0.0f;
  for (int c = 0; c < classes; ++c) sum += expf(as_float(z[c]) - top);
  const int label = labels[n];
  atomicAdd(loss, (logf(sum) - (as_float(z[label]) - top)) / float(batch));
  const float factor = (scale != nullptr ? *scale : 1.0f) / float(batch);
  for (int c = 0; c < classes; ++c) {
    const float p = expf(as_float(z[c]) - top) / sum;
    dlogits[n * classes + c] = stored_as<T>((p - (c == label ? 1.0f : 0.0f)) * factor);
  }
}
// [/snippet]

// ---------------------------------------------------------------- backward

// One thread per pooled output: its window's four gradients, dy at the argmax where the pooled
// value (the ReLU's output there) was positive, 0 elsewhere. Windows do not overlap, so every
// element of dx is written once, and nothing needs zeroing first.
template <typename T>
__global__ void pool_relu_backward_kernel(const T* dy, const int* at, const T* pooled, T* dx, int planes, int side) {
  const int half = side / 2;
  const std::size_t o = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (o >= std::size_t(planes) * half * half) return;
  const int j = int(o % half), i = int(o / half % half), p = int(o / half / half);
  const T g = as_float(pooled[o]) > 0.0f ? dy[o] : stored_as<T>(0.0f);
  for (int di = 0; di < 2; ++di) {
    for (int dj = 0; dj < 2; ++dj) {
      const int k = (p * side + 2 * i + di) * side + 2 * j + dj;
      dx[k] = k == at[o] ? g : stored_as<T>(0.0f);
    }
  }
}

// [snippet:cnn_weight_grad]
// dW[k][c][r][s] = Σ over images n and outputs (i, j) of dz[n][k][i][j] · x[n][c][i + r − 1]
// [j + s − 1], and db[k] = Σ dz[n][k][i][j]: for each (filter k, channel c), 10 sums over the
// whole batch. One block per (filter, channel) would leave the first layer 48 blocks for a GPU
// of 132 multiprocessors, each summing batch × 32² positions (the step's slowest kernel, 126 µs
// at 32 images on the H100), so the batch is cut into shares too: block (k·C + c, share) sums
// its share's positions into 10 registers per thread, then the block adds its threads' sums in
// shared memory, halving the active threads each step, and writes the 10 totals to `partial`.
template <typename In, typename T>
__global__ void conv_weight_grad_kernel(const In* x, const T* dz, float* partial, int batch, int channels, int filters,
                                        int side, int images_per_share) {
  __shared__ float sums[10][kBlock];
  const int k = int(blockIdx.x) / channels, c = int(blockIdx.x) % channels, t = int(threadIdx.x);
  const int plane = side * side, first = int(blockIdx.y) * images_per_share;
  const int images = min(batch - first, images_per_share);
  float sum[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int e = t; e < images * plane; e += kBlock) {  // position e of the share: image n, pixel (i, j)
    const int n = first + e / plane, p = e % plane, i = p / side, j = p % side;
    const float g = as_float(dz[(std::size_t(n) * filters + k) * plane + p]);
    const In* in = x + (std::size_t(n) * channels + c) * plane;
    for (int r = 0; r < 3; ++r) {
      const int row = i + r - 1;
      if (row < 0 || row >= side) continue;
      for (int s = 0; s < 3; ++s) {
        const int col = j + s - 1;
        if (col >= 0 && col < side) sum[r * 3 + s] += g * as_float(in[row * side + col]);
      }
    }
    sum[9] += g;
  }
  for (int q = 0; q < 10; ++q) sums[q][t] = sum[q];
  __syncthreads();
  for (int stride = kBlock / 2; stride > 0; stride /= 2) {
    if (t < stride) {
      for (int q = 0; q < 10; ++q) sums[q][t] += sums[q][t + stride];
    }
    __syncthreads();
  }
  if (t < 10) partial[(std::size_t(blockIdx.x) * gridDim.y + blockIdx.y) * 10 + t] = sums[t][0];
}

// One warp per (filter, channel, tap or bias): its lanes add every 32nd share, in order, then the
// warp adds its lanes' sums in a fixed tree (__shfl_down_sync) — a fixed order, the same result
// every run, and no long chain of loads however many shares — into dW, and channel 0's bias
// totals into db.
__global__ void conv_grad_shares_kernel(const float* partial, float* dw, float* db, int channels, int filters,
                                        int shares) {
  const std::size_t e = (std::size_t{blockIdx.x} * blockDim.x + threadIdx.x) / 32;
  const int lane = int(threadIdx.x % 32);
  if (e >= std::size_t(filters) * channels * 10) return;  // the whole warp: e is the warp's
  const std::size_t kc = e / 10;
  const int q = int(e % 10);
  float total = 0.0f;
  for (int share = lane; share < shares; share += 32) total += partial[(kc * shares + share) * 10 + q];
  for (int offset = 16; offset > 0; offset /= 2) total += __shfl_down_sync(0xffffffffu, total, offset);
  if (lane != 0) return;
  if (q < 9) dw[kc * 9 + q] = total;
  if (q == 9 && kc % channels == 0) db[kc / channels] = total;
}
// [/snippet]

// One thread per input (n, c, i, j): dx = Σ over filters k and taps (r, s) of dz[n][k][i − r + 1]
// [j − s + 1] · w[k][c][r][s], the outputs whose windows held this input.
template <typename T>
__global__ void conv_data_grad_kernel(const T* w, const T* dz, T* dx, int batch, int channels, int filters, int side) {
  const std::size_t plane = std::size_t(side) * side;
  const std::size_t e = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (e >= std::size_t(batch) * channels * plane) return;
  const int j = int(e % side), i = int(e / side % side);
  const int c = int(e / plane % channels), n = int(e / plane / channels);
  float sum = 0.0f;
  for (int k = 0; k < filters; ++k) {
    const T* d = dz + (std::size_t(n) * filters + k) * plane;
    const T* f = w + (std::size_t(k) * channels + c) * 9;
    for (int r = 0; r < 3; ++r) {
      const int row = i - r + 1;
      if (row < 0 || row >= side) continue;
      for (int s = 0; s < 3; ++s) {
        const int col = j - s + 1;
        if (col >= 0 && col < side) sum += as_float(d[row * side + col]) * as_float(f[r * 3 + s]);
      }
    }
  }
  dx[e] = stored_as<T>(sum);
}

// ---------------------------------------------------------------- launchers
// Each written once as a template on the storage; the public ones below take floats, or FP16 as
// its bit patterns (cnn_gpu.hpp).

namespace {

template <typename In, typename T>
void launch_conv3x3_relu(const In* x, const T* w, const T* b, T* y, int batch, int channels, int filters, int side,
                         void* stream) {
  const std::size_t outputs = std::size_t(batch) * filters * side * side;
  if (outputs == 0) return;
  conv3x3_relu_kernel<<<blocks_for(outputs, kBlock), kBlock, 0, as_stream(stream)>>>(x, w, b, y, batch, channels,
                                                                                     filters, side);
  check_launch("conv3x3_relu_kernel", blocks_for(outputs, kBlock), kBlock);
}

template <typename T>
void launch_max_pool2(const T* x, T* y, int* at, int planes, int side, void* stream) {
  const std::size_t outputs = std::size_t(planes) * (side / 2) * (side / 2);
  if (outputs == 0) return;
  max_pool2_kernel<<<blocks_for(outputs, kBlock), kBlock, 0, as_stream(stream)>>>(x, y, at, planes, side);
  check_launch("max_pool2_kernel", blocks_for(outputs, kBlock), kBlock);
}

template <typename T>
void launch_softmax(const T* logits, const int* labels, T* dlogits, float* loss, const float* scale, int batch,
                    int classes, void* stream) {
  GPULAB_CUDA_CHECK(cudaMemsetAsync(loss, 0, sizeof(float), as_stream(stream)));  // the images' terms add into it
  if (batch == 0) return;
  softmax_xent_kernel<<<blocks_for(batch, kBlock), kBlock, 0, as_stream(stream)>>>(logits, labels, dlogits, loss, scale,
                                                                                   batch, classes);
  check_launch("softmax_xent_kernel", blocks_for(batch, kBlock), kBlock);
}

template <typename T>
void launch_pool_backward(const T* dy, const int* at, const T* pooled, T* dx, int planes, int side, void* stream) {
  const std::size_t outputs = std::size_t(planes) * (side / 2) * (side / 2);
  if (outputs == 0) return;
  pool_relu_backward_kernel<<<blocks_for(outputs, kBlock), kBlock, 0, as_stream(stream)>>>(dy, at, pooled, dx, planes,
                                                                                           side);
  check_launch("pool_relu_backward_kernel", blocks_for(outputs, kBlock), kBlock);
}

// How many shares of the batch the weight gradient's blocks take: enough for about
// kGradientBlocks blocks in all, but no share under kShareWork positions (16 per thread), where
// splitting saves less than the second kernel costs.
constexpr int kGradientBlocks = 1024, kShareWork = 16 * kBlock;
int gradient_shares(int batch, int side, int filters, int channels) {
  const long positions = long(batch) * side * side;
  const long wanted = std::min<long>(std::max(1, kGradientBlocks / std::max(1, filters * channels)),
                                     std::max<long>(1, positions / kShareWork));
  const int per_share = int(std::max<long>(1, (batch + wanted - 1) / wanted));
  return std::max(1, (batch + per_share - 1) / per_share);
}

template <typename In, typename T>
void launch_conv_backward(const In* x, const T* w, const T* dz, float* dw, float* db, T* dx, float* partial, int batch,
                          int channels, int filters, int side, void* stream) {
  if (filters == 0 || channels == 0) return;
  const int shares = gradient_shares(batch, side, filters, channels);
  const int per_share = std::max(1, (batch + shares - 1) / shares);
  const dim3 grid(static_cast<unsigned int>(filters * channels), static_cast<unsigned int>(shares));
  conv_weight_grad_kernel<<<grid, kBlock, 0, as_stream(stream)>>>(x, dz, partial, batch, channels, filters, side,
                                                                  per_share);
  check_launch("conv_weight_grad_kernel", grid, kBlock);
  add_gradient_shares(partial, dw, db, channels, filters, shares, stream);
  const std::size_t inputs = std::size_t(batch) * channels * side * side;
  if (dx == nullptr || inputs == 0) return;
  conv_data_grad_kernel<<<blocks_for(inputs, kBlock), kBlock, 0, as_stream(stream)>>>(w, dz, dx, batch, channels,
                                                                                      filters, side);
  check_launch("conv_data_grad_kernel", blocks_for(inputs, kBlock), kBlock);
}

}  // namespace

std::size_t conv_scratch(int batch, int side, int channels, int filters) {
  const int shares =
      std::max(gradient_shares(batch, side, filters, channels), implicit_gemm_shares(batch, side, channels, filters));
  return std::size_t(shares) * filters * channels * 10;
}

void add_gradient_shares(const float* partial, float* dw, float* db, int channels, int filters, int shares,
                         void* stream) {
  const std::size_t totals = std::size_t(filters) * channels * 10;
  if (totals == 0) return;
  conv_grad_shares_kernel<<<blocks_for(32 * totals, kBlock), kBlock, 0, as_stream(stream)>>>(partial, dw, db, channels,
                                                                                             filters, shares);
  check_launch("conv_grad_shares_kernel", blocks_for(32 * totals, kBlock), kBlock);
}

// ---- FP32

void conv3x3_relu(const float* x, const float* w, const float* b, float* y, int batch, int channels, int filters,
                  int side, void* stream) {
  launch_conv3x3_relu(x, w, b, y, batch, channels, filters, side, stream);
}

void max_pool2(const float* x, float* y, int* at, int planes, int side, void* stream) {
  launch_max_pool2(x, y, at, planes, side, stream);
}

void softmax_cross_entropy(const float* logits, const int* labels, float* dlogits, float* loss, const float* scale,
                           int batch, int classes, void* stream) {
  launch_softmax(logits, labels, dlogits, loss, scale, batch, classes, stream);
}

void max_pool2_relu_backward(const float* dy, const int* at, const float* pooled, float* dx, int planes, int side,
                             void* stream) {
  launch_pool_backward(dy, at, pooled, dx, planes, side, stream);
}

void conv3x3_backward(const float* x, const float* w, const float* dz, float* dw, float* db, float* dx, float* scratch,
                      int batch, int channels, int filters, int side, void* stream) {
  launch_conv_backward(x, w, dz, dw, db, dx, scratch, batch, channels, filters, side, stream);
}

// ---- FP16 storage (the mixed step), as bit patterns

void conv3x3_relu(const float* x, const std::uint16_t* w, const std::uint16_t* b, std::uint16_t* y, int batch,
                  int channels, int filters, int side, void* stream) {
  launch_conv3x3_relu(x, kernel_view(w), kernel_view(b), kernel_view(y), batch, channels, filters, side, stream);
}

void conv3x3_relu(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* b, std::uint16_t* y, int batch,
                  int channels, int filters, int side, void* stream) {
  launch_conv3x3_relu(kernel_view(x), kernel_view(w), kernel_view(b), kernel_view(y), batch, channels, filters, side,
                      stream);
}

void max_pool2(const std::uint16_t* x, std::uint16_t* y, int* at, int planes, int side, void* stream) {
  launch_max_pool2(kernel_view(x), kernel_view(y), at, planes, side, stream);
}

void softmax_cross_entropy(const std::uint16_t* logits, const int* labels, std::uint16_t* dlogits, float* loss,
                           const float* scale, int batch, int classes, void* stream) {
  launch_softmax(kernel_view(logits), labels, kernel_view(dlogits), loss, scale, batch, classes, stream);
}

void max_pool2_relu_backward(const std::uint16_t* dy, const int* at, const std::uint16_t* pooled, std::uint16_t* dx,
                             int planes, int side, void* stream) {
  launch_pool_backward(kernel_view(dy), at, kernel_view(pooled), kernel_view(dx), planes, side, stream);
}

void conv3x3_backward(const float* x, const std::uint16_t* w, const std::uint16_t* dz, float* dw, float* db,
                      std::uint16_t* dx, float* scratch, int batch, int channels, int filters, int side, void* stream) {
  launch_conv_backward(x, kernel_view(w), kernel_view(dz), dw, db, kernel_view(dx), scratch, batch, channels, filters,
                       side, stream);
}

void conv3x3_backward(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* dz, float* dw, float* db,
                      std::uint16_t* dx, float* scratch, int batch, int channels, int filters, int side, void* stream) {
  launch_conv_backward(kernel_view(x), kernel_view(w), kernel_view(dz), dw, db, kernel_view(dx), scratch, batch,
                       channels, filters, side, stream);
}

}  // namespace gpulab::cnn
