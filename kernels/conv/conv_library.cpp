// cuDNN with the algorithm it measures fastest for each shape.
#include "conv/conv_library.hpp"

#include <cudnn.h>

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include "common/cuda_error.hpp"
#include "common/cudnn_handle.hpp"
#include "common/gpu_memory.hpp"

namespace gpulab::conv {

namespace {

const char* algorithm_name(cudnnConvolutionFwdAlgo_t algo) {
  switch (algo) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
      return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
      return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
      return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT:
      return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT:
      return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING:
      return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD:
      return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED:
      return "WINOGRAD_NONFUSED";
    default:
      return "unknown";
  }
}

// Descriptors, the algorithm and its workspace for one shape, made once (cudnnFind… runs every
// algorithm, which takes far longer than a convolution).
struct CudnnPlan {
  Shape shape;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t algo{};
  std::unique_ptr<DeviceBuffer<unsigned char>> workspace;
  std::string name;

  explicit CudnnPlan(const Shape& s) : shape(s) {
    try {
      make();
    } catch (...) {
      destroy();
      throw;
    }
  }
  CudnnPlan(const CudnnPlan&) = delete;
  CudnnPlan& operator=(const CudnnPlan&) = delete;
  ~CudnnPlan() { destroy(); }

 private:
  void make() {
    const Shape& s = shape;
    GPULAB_CUDNN_CHECK(cudnnCreateTensorDescriptor(&x));
    GPULAB_CUDNN_CHECK(cudnnCreateTensorDescriptor(&y));
    GPULAB_CUDNN_CHECK(cudnnCreateFilterDescriptor(&w));
    GPULAB_CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv));
    GPULAB_CUDNN_CHECK(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, s.n, s.c, s.h, s.w));
    GPULAB_CUDNN_CHECK(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, s.k, s.c, s.r, s.s));
    GPULAB_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(conv, s.pad, s.pad, s.stride, s.stride, 1, 1,
                                                       CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    // FP32 arithmetic only: no TF32 tensor cores, to compare like with like.
    GPULAB_CUDNN_CHECK(cudnnSetConvolutionMathType(conv, CUDNN_FMA_MATH));
    GPULAB_CUDNN_CHECK(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, s.n, s.k, s.p(), s.q()));
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int found = 0;
    // (The legacy API, deprecated in cuDNN 9 in favour of the graph API, and still the shortest
    // way to ask for "the fastest convolution for this shape".)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    GPULAB_CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithm(cudnn_handle(), x, w, conv, y,
                                                            CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf));
#pragma GCC diagnostic pop
    const cudnnConvolutionFwdAlgoPerf_t* best = nullptr;
    for (int i = 0; i < found && best == nullptr; ++i) {  // sorted fastest first
      if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].mathType == CUDNN_FMA_MATH) best = &perf[i];
    }
    if (best == nullptr) throw std::runtime_error("cuDNN found no FP32 algorithm for " + gpulab::conv::to_string(s));
    algo = best->algo;
    GPULAB_CUDNN_CHECK(cudnnSetConvolutionMathType(conv, best->mathType));
    workspace = std::make_unique<DeviceBuffer<unsigned char>>(best->memory, "cuDNN workspace");
    char bytes[32];
    std::snprintf(bytes, sizeof bytes, "%.1f MB", static_cast<double>(best->memory) / 1e6);
    name = std::string(algorithm_name(algo)) + ", workspace " + bytes;
  }
  void destroy() noexcept {
    if (conv != nullptr) cudnnDestroyConvolutionDescriptor(conv);
    if (w != nullptr) cudnnDestroyFilterDescriptor(w);
    if (y != nullptr) cudnnDestroyTensorDescriptor(y);
    if (x != nullptr) cudnnDestroyTensorDescriptor(x);
  }
};

}  // namespace

void cudnn(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape) {
  gpulab::conv::check_shape(shape);
  if (x.size() != shape.input_size() || w.size() != shape.filter_size() || y.size() != shape.output_size()) {
    throw std::invalid_argument("cudnn: x, w and y must hold N·C·H·W, K·C·R·S and N·K·P·Q floats");
  }
  if (y.empty()) return;  // cuDNN's descriptors take no empty dimension
  const CudnnPlan& plan = plan_for<CudnnPlan>(shape);
  const float one = 1.0f, zero = 0.0f;
  GPULAB_CUDNN_CHECK(cudnnConvolutionForward(cudnn_handle(), &one, plan.x, x.data(), plan.w, w.data(), plan.conv,
                                             plan.algo, plan.workspace->data(), plan.workspace->size(), &zero, plan.y,
                                             y.data()));
}

std::string cudnn_algorithm(const Shape& shape) {
  if (shape.output_size() == 0) return "nothing to compute";
  return plan_for<CudnnPlan>(shape).name;
}

}  // namespace gpulab::conv
