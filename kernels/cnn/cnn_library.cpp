// Lesson 16's layers from NVIDIA's libraries, for the step that compares ours with them (GPU
// only): cuDNN's convolutions — forward, then its bias and ReLU; the gradients of the weights, of
// the bias and of the input — and cuBLAS's SGEMM for the linear layers, FP32 arithmetic
// throughout (no TF32), as PyTorch's eager FP32 step calls them.
#include <cudnn.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "cnn/cnn_gpu.hpp"
#include "common/cudnn_handle.hpp"
#include "common/gpu_memory.hpp"
#include "matmul/matmul_cublas.hpp"
#include "mlp/mlp.hpp"

namespace gpulab::cnn {

namespace {

// A 3 × 3 convolution (padding 1) of one shape: its descriptors, the algorithm cuDNN's heuristics
// rank first among the FP32 ones for each of its three passes, and one workspace for the largest.
// Made once per shape, before any step runs it.
class ConvPlan {
 public:
  ConvPlan(int batch, int channels, int filters, int side) {
    try {
      make(batch, channels, filters, side);
    } catch (...) {
      destroy();
      throw;
    }
  }
  ConvPlan(const ConvPlan&) = delete;
  ConvPlan& operator=(const ConvPlan&) = delete;
  ~ConvPlan() { destroy(); }

  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnActivationDescriptor_t relu = nullptr;
  cudnnConvolutionFwdAlgo_t forward{};
  cudnnConvolutionBwdDataAlgo_t data{};
  cudnnConvolutionBwdFilterAlgo_t filter{};
  std::unique_ptr<DeviceBuffer<unsigned char>> workspace;

 private:
  // The first of cuDNN's ranked algorithms that runs in FP32 (FMA) arithmetic; its workspace bytes.
  template <typename Perf>
  static const Perf& first_fp32(const Perf* perf, int found, const char* pass) {
    for (int i = 0; i < found; ++i) {
      if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].mathType == CUDNN_FMA_MATH) return perf[i];
    }
    throw std::runtime_error(std::string("cuDNN offers no FP32 algorithm for the CNN's ") + pass);
  }

  void make(int batch, int channels, int filters, int side) {
    GPULAB_CUDNN_CHECK(cudnnCreateTensorDescriptor(&x));
    GPULAB_CUDNN_CHECK(cudnnCreateTensorDescriptor(&y));
    GPULAB_CUDNN_CHECK(cudnnCreateTensorDescriptor(&bias));
    GPULAB_CUDNN_CHECK(cudnnCreateFilterDescriptor(&w));
    GPULAB_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv));
    GPULAB_CUDNN_CHECK(cudnnCreateActivationDescriptor(&relu));
    GPULAB_CUDNN_CHECK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, batch, channels, side, side));
    GPULAB_CUDNN_CHECK(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, batch, filters, side, side));
    GPULAB_CUDNN_CHECK(cudnnSetTensor4dDescriptor(bias, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, filters, 1, 1));
    GPULAB_CUDNN_CHECK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, filters, channels, 3, 3));
    GPULAB_CUDNN_CHECK(
        cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    GPULAB_CUDNN_CHECK(cudnnSetConvolutionMathType(conv, CUDNN_FMA_MATH));  // no TF32: FP32 like ours
    GPULAB_CUDNN_CHECK(cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    const cudnnHandle_t h = cudnn_handle();
    int found = 0;
    // (The legacy API, deprecated in cuDNN 9 in favour of the graph API, and still the shortest
    // way to ask for "the best algorithm for this shape".)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    cudnnConvolutionFwdAlgoPerf_t forward_perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    GPULAB_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(h, x, w, conv, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                              &found, forward_perf));
    const auto& f = first_fp32(forward_perf, found, "forward pass");
    cudnnConvolutionBwdDataAlgoPerf_t data_perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    GPULAB_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(
        h, w, y, conv, x, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &found, data_perf));
    const auto& d = first_fp32(data_perf, found, "input gradient");
    cudnnConvolutionBwdFilterAlgoPerf_t filter_perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
    GPULAB_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
        h, x, y, conv, w, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &found, filter_perf));
    const auto& g = first_fp32(filter_perf, found, "weight gradient");
#pragma GCC diagnostic pop
    forward = f.algo;
    data = d.algo;
    filter = g.algo;
    workspace = std::make_unique<DeviceBuffer<unsigned char>>(std::max({f.memory, d.memory, g.memory, std::size_t{1}}),
                                                              "cuDNN workspace");
  }

  void destroy() noexcept {
    if (relu != nullptr) cudnnDestroyActivationDescriptor(relu);
    if (conv != nullptr) cudnnDestroyConvolutionDescriptor(conv);
    if (w != nullptr) cudnnDestroyFilterDescriptor(w);
    if (bias != nullptr) cudnnDestroyTensorDescriptor(bias);
    if (y != nullptr) cudnnDestroyTensorDescriptor(y);
    if (x != nullptr) cudnnDestroyTensorDescriptor(x);
  }
};

// The plan for a shape, made on first use and kept for this thread (a step has two shapes).
ConvPlan& plan_for(int batch, int channels, int filters, int side, void* stream) {
  thread_local std::map<std::array<int, 4>, std::unique_ptr<ConvPlan>> plans;
  std::unique_ptr<ConvPlan>& plan = plans[{batch, channels, filters, side}];
  if (!plan) plan = std::make_unique<ConvPlan>(batch, channels, filters, side);
  GPULAB_CUDNN_CHECK(cudnnSetStream(cudnn_handle(), static_cast<cudaStream_t>(stream)));
  return *plan;
}

}  // namespace

void conv3x3_relu_cudnn(const float* x, const float* w, const float* b, float* y, int batch, int channels, int filters,
                        int side, void* stream) {
  if (batch == 0 || filters == 0 || side == 0) return;  // cuDNN's descriptors take no empty dimension
  ConvPlan& p = plan_for(batch, channels, filters, side, stream);
  const cudnnHandle_t h = cudnn_handle();
  const float one = 1.0f, zero = 0.0f;
  GPULAB_CUDNN_CHECK(cudnnConvolutionForward(h, &one, p.x, x, p.w, w, p.conv, p.forward, p.workspace->data(),
                                             p.workspace->size(), &zero, p.y, y));
  GPULAB_CUDNN_CHECK(cudnnAddTensor(h, &one, p.bias, b, &one, p.y, y));
  GPULAB_CUDNN_CHECK(cudnnActivationForward(h, p.relu, &one, p.y, y, &zero, p.y, y));
}

void conv3x3_backward_cudnn(const float* x, const float* w, const float* dz, float* dw, float* db, float* dx, int batch,
                            int channels, int filters, int side, void* stream) {
  if (filters == 0 || channels == 0) return;
  if (batch == 0 || side == 0) {  // no sums at all: the gradients are 0
    GPULAB_CUDA_CHECK(
        cudaMemsetAsync(dw, 0, std::size_t(filters) * channels * 9 * sizeof(float), static_cast<cudaStream_t>(stream)));
    GPULAB_CUDA_CHECK(cudaMemsetAsync(db, 0, std::size_t(filters) * sizeof(float), static_cast<cudaStream_t>(stream)));
    return;
  }
  ConvPlan& p = plan_for(batch, channels, filters, side, stream);
  const cudnnHandle_t h = cudnn_handle();
  const float one = 1.0f, zero = 0.0f;
  GPULAB_CUDNN_CHECK(cudnnConvolutionBackwardBias(h, &one, p.y, dz, &zero, p.bias, db));
  GPULAB_CUDNN_CHECK(cudnnConvolutionBackwardFilter(h, &one, p.x, x, p.y, dz, p.conv, p.filter, p.workspace->data(),
                                                    p.workspace->size(), &zero, p.w, dw));
  if (dx == nullptr) return;
  GPULAB_CUDNN_CHECK(cudnnConvolutionBackwardData(h, &one, p.w, w, p.y, dz, p.conv, p.data, p.workspace->data(),
                                                  p.workspace->size(), &zero, p.x, dx));
}

void linear_cublas(const float* x, const float* w, const float* b, float* y, float* scratch, int batch, int in, int out,
                   bool relu, void* stream) {
  if (batch == 0 || out == 0) return;
  matmul::cublas_gemm(false, true, x, w, scratch, batch, out, in, stream);  // x · Wᵀ
  add_bias_activation(scratch, 1, b, y, batch, out, relu, stream);
}

void linear_backward_cublas(const float* x, const float* w, const float* dy, float* dw, float* db, float* dx,
                            const float* mask, int batch, int in, int out, void* stream) {
  matmul::cublas_gemm(true, false, dy, x, dw, out, in, batch, stream);  // dyᵀ · x
  mlp::sum_columns(dy, db, batch, out, stream);
  if (dx == nullptr || batch == 0) return;
  matmul::cublas_gemm(false, false, dy, w, dx, batch, in, out, stream);  // dy · W
  if (mask != nullptr) mask_relu(dx, mask, std::size_t(batch) * in, stream);
}

}  // namespace gpulab::cnn
