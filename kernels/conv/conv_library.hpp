#pragma once
// The convolution variants built on NVIDIA's libraries (GPU only): FFT with cuFFT, and cuDNN
// (im2col + cuBLAS is conv.hpp's im2col_gemm with matmul::cublas; both build for the GPU alone). Device memory
// throughout.
#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "conv/conv_shape.hpp"

namespace gpulab::conv {

// Convolution theorem: zero-pad every image and filter to L_h × L_w (sizes cuFFT factors well),
// transform (R2C), multiply by the filters' conjugate spectra and sum over channels, transform
// back (C2R), keep the valid outputs. The plans and buffers are made once per shape and kept.
void fft(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape);
// The padded transform size fft uses for an extent (the smallest 2^a 3^b 5^c 7^d >= extent).
int fft_size(int extent);

// A library's set-up for one shape (plans, descriptors, buffers), made on first use and kept for
// the next run of the same shape on this thread: making one costs far more than a run.
template <typename Plan>
Plan& plan_for(const Shape& shape) {
  thread_local std::unique_ptr<Plan> plan;
  if (!plan || !(plan->shape == shape)) {
    plan.reset();  // free the old one first
    plan = std::make_unique<Plan>(shape);
  }
  return *plan;
}

// cuDNN's forward convolution in FP32 (FMA math: no TF32 tensor cores), with the fastest
// algorithm cudnnFind… measured for this shape (found once per shape and kept).
void cudnn(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape);
// The algorithm cudnn() used for this shape, by name ("IMPLICIT_PRECOMP_GEMM, workspace 1.2 MB").
std::string cudnn_algorithm(const Shape& shape);

}  // namespace gpulab::conv
