// The CNN's linear layers on the GPU (cnn_gpu.hpp), forward and backward: a GEMM — lesson 07's
// 16 × 16 tiles (mlp::gemm_tiled) in the thread-per-output steps, the implicit GEMMs' 32 × 64
// register or tensor-core tiles (cnn_implicit_gemm.cu) in the tiled ones — with k split in
// slices where the tiles alone would give the GPU too few blocks, then an epilogue kernel: the
// slices added, + bias, ReLU. Storage T is float or __half, every sum a float (common/stored.cuh).
#include <stdexcept>
#include <type_traits>

#include "cnn/cnn_gpu.hpp"
#include "common/launch.cuh"
#include "common/stored.cuh"
#include "mlp/mlp.hpp"

namespace gpulab::cnn {

namespace {

constexpr int kBlock = 256;

cudaStream_t as_stream(void* stream) { return static_cast<cudaStream_t>(stream); }

}  // namespace

// y[n][o] = the GEMM's `splits` partial products added + b[o], then ReLU where asked: the
// GEMM's epilogue.
template <typename T>
__global__ void bias_act_kernel(const float* partial, int splits, const T* b, T* y, int rows, int cols, bool relu) {
  const std::size_t e = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  const std::size_t count = std::size_t(rows) * cols;
  if (e >= count) return;
  float z = as_float(b[e % cols]);
  for (int split = 0; split < splits; ++split) z += partial[split * count + e];
  y[e] = stored_as<T>(relu ? fmaxf(z, 0.0f) : z);
}

// c[e] = the `splits` slices of a split GEMM added, in order.
__global__ void add_slices_kernel(const float* partial, int splits, float* c, std::size_t count) {
  const std::size_t e = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (e >= count) return;
  float total = 0.0f;
  for (int split = 0; split < splits; ++split) total += partial[split * count + e];
  c[e] = total;
}

// g ⊙ (mask > 0): the ReLU's backward pass, in place.
template <typename T>
__global__ void relu_mask_kernel(T* g, const T* mask, std::size_t count) {
  const std::size_t e = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (e < count && !(as_float(mask[e]) > 0.0f)) g[e] = stored_as<T>(0.0f);
}

namespace {

template <typename T>
void launch_bias_act(const float* partial, int splits, const T* b, T* y, int rows, int cols, bool relu, void* stream) {
  const std::size_t count = std::size_t(rows) * cols;
  if (count == 0) return;
  bias_act_kernel<<<blocks_for(count, kBlock), kBlock, 0, as_stream(stream)>>>(partial, splits, kernel_view(b),
                                                                               kernel_view(y), rows, cols, relu);
  check_launch("bias_act_kernel", blocks_for(count, kBlock), kBlock);
}

template <typename T>
void launch_relu_mask(T* g, const T* mask, std::size_t count, void* stream) {
  if (count == 0) return;
  relu_mask_kernel<<<blocks_for(count, kBlock), kBlock, 0, as_stream(stream)>>>(kernel_view(g), kernel_view(mask),
                                                                                count);
  check_launch("relu_mask_kernel", blocks_for(count, kBlock), kBlock);
}

// Which GEMM a linear layer runs: lesson 07's 16 × 16 tiles (mlp::gemm_tiled), or the implicit
// GEMMs' 32 × 64 register or tensor-core tiles (gemm_tiles, cnn_implicit_gemm.cu).
enum class Gemm { lesson07, tiles };
template <Gemm kGemm>
int gemm_splits(int m, int n, int k) {
  return kGemm == Gemm::tiles ? gemm_tiles_splits(m, n, k) : mlp::gemm_tiled_splits(m, n, k);
}
template <Gemm kGemm, typename T, typename C>
void run_gemm(bool ta, bool tb, const T* a, const T* b, C* c, int m, int n, int k, void* stream, int splits = 1) {
  if constexpr (kGemm == Gemm::tiles) {
    gemm_tiles(ta, tb, a, b, c, m, n, k, stream, splits);
  } else if constexpr (std::is_same_v<C, float>) {
    mlp::gemm_tiled(ta, tb, a, b, c, m, n, k, stream, splits);
  } else {
    mlp::gemm_tiled(ta, tb, a, b, c, m, n, k, stream);  // (an FP16 C is never split)
  }
}

// The GEMM (y = x · Wᵀ) into `partial` — k split in slices where the tiles of y alone would give
// the GPU too few blocks (fc1: 2048 inputs, 16 tiles at 32 images) — then the slices added, the
// bias and the ReLU.
template <Gemm kGemm, typename T>
void launch_linear(const T* x, const T* w, const T* b, T* y, float* partial, int batch, int in, int out, bool relu,
                   void* stream) {
  if (batch == 0 || out == 0) return;
  const int splits = gemm_splits<kGemm>(batch, out, in);
  run_gemm<kGemm>(false, true, x, w, partial, batch, out, in, stream, splits);
  launch_bias_act(partial, splits, b, y, batch, out, relu, stream);
}

// dW = dyᵀ · x, db = Σ dy; dx = dy · W, masked by the ReLU below (lesson 07's sums). On the
// tiles, dW's sum over the batch is split in slices where its tiles are too few (fc2's 10 × 128:
// 2 tiles), added after into dW.
template <Gemm kGemm, typename T>
void launch_linear_backward(const T* x, const T* w, const T* dy, float* dw, float* db, T* dx, const T* mask,
                            float* scratch, int batch, int in, int out, void* stream) {
  const int splits = kGemm == Gemm::tiles ? gemm_tiles_splits(out, in, batch) : 1;
  if (splits > 1) {
    run_gemm<kGemm>(true, false, dy, x, scratch, out, in, batch, stream, splits);
    const std::size_t count = std::size_t(out) * in;
    add_slices_kernel<<<blocks_for(count, kBlock), kBlock, 0, as_stream(stream)>>>(scratch, splits, dw, count);
    check_launch("add_slices_kernel", blocks_for(count, kBlock), kBlock);
  } else {
    run_gemm<kGemm>(true, false, dy, x, dw, out, in, batch, stream);
  }
  mlp::sum_columns(dy, db, batch, out, stream);
  if (dx == nullptr || batch == 0) return;
  run_gemm<kGemm>(false, false, dy, w, dx, batch, in, out, stream);
  if (mask != nullptr) launch_relu_mask(dx, mask, std::size_t(batch) * in, stream);
}

}  // namespace

std::size_t linear_scratch(int batch, int in, int out) {
  const int splits = std::max(gemm_splits<Gemm::lesson07>(batch, out, in), gemm_splits<Gemm::tiles>(batch, out, in));
  return std::max(std::size_t(splits) * batch * out, std::size_t(gemm_tiles_splits(out, in, batch)) * out * in);
}

void add_bias_activation(const float* partial, int splits, const float* b, float* y, int rows, int cols, bool relu,
                         void* stream) {
  launch_bias_act(partial, splits, b, y, rows, cols, relu, stream);
}

void mask_relu(float* g, const float* mask, std::size_t count, void* stream) {
  launch_relu_mask(g, mask, count, stream);
}

void linear_on_tiles(const float* x, const float* w, const float* b, float* y, float* scratch, int batch, int in,
                     int out, bool relu, void* stream) {
  launch_linear<Gemm::tiles>(x, w, b, y, scratch, batch, in, out, relu, stream);
}

void linear_on_tiles(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* b, std::uint16_t* y,
                     float* scratch, int batch, int in, int out, bool relu, void* stream) {
  launch_linear<Gemm::tiles>(x, w, b, y, scratch, batch, in, out, relu, stream);
}

void linear_backward_on_tiles(const float* x, const float* w, const float* dy, float* dw, float* db, float* dx,
                              const float* mask, float* scratch, int batch, int in, int out, void* stream) {
  launch_linear_backward<Gemm::tiles>(x, w, dy, dw, db, dx, mask, scratch, batch, in, out, stream);
}

void linear_backward_on_tiles(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* dy, float* dw,
                              float* db, std::uint16_t* dx, const std::uint16_t* mask, float* scratch, int batch,
                              int in, int out, void* stream) {
  launch_linear_backward<Gemm::tiles>(x, w, dy, dw, db, dx, mask, scratch, batch, in, out, stream);
}

// ---- FP32

void linear(const float* x, const float* w, const float* b, float* y, float* scratch, int batch, int in, int out,
            bool relu, void* stream) {
  launch_linear<Gemm::lesson07>(x, w, b, y, scratch, batch, in, out, relu, stream);
}

void linear_backward(const float* x, const float* w, const float* dy, float* dw, float* db, float* dx,
                     const float* mask, int batch, int in, int out, void* stream) {
  launch_linear_backward<Gemm::lesson07>(x, w, dy, dw, db, dx, mask, nullptr, batch, in, out, stream);
}

// ---- FP16 storage (the mixed step), as bit patterns

void linear(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* b, std::uint16_t* y, float* scratch,
            int batch, int in, int out, bool relu, void* stream) {
  launch_linear<Gemm::lesson07>(x, w, b, y, scratch, batch, in, out, relu, stream);
}

void linear_backward(const std::uint16_t* x, const std::uint16_t* w, const std::uint16_t* dy, float* dw, float* db,
                     std::uint16_t* dx, const std::uint16_t* mask, int batch, int in, int out, void* stream) {
  launch_linear_backward<Gemm::lesson07>(x, w, dy, dw, db, dx, mask, nullptr, batch, in, out, stream);
}

}  // namespace gpulab::cnn
