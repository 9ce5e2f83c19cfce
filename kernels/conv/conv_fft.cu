// Convolution by FFT (GPU only: cuFFT). Correlating with a filter is multiplying spectra, one by
// the other's conjugate, so the cost no longer grows with R · S: for large filters it wins.
//
//   1. every image channel, zero-padded (by `pad`, then up to L_h × L_w), and every filter
//      channel, zero-padded to L_h × L_w, go through a real-to-complex 2-D FFT;
//   2. for each image n, filter k and frequency f: Y = Σ_c X[n,c](f) · conj(W[k,c](f));
//   3. a complex-to-real inverse FFT (unscaled in cuFFT: divide by L_h · L_w), and output
//      (p, q) is the circular correlation at (p · stride, q · stride).
// The transforms are circular, so L must leave no wrap-around in the outputs kept: L >= H + 2·pad
// suffices, because the last window kept ends inside the padded image.
#include <cufft.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "common/gpu_memory.hpp"
#include "common/launch.cuh"
#include "conv/conv_library.hpp"

namespace gpulab::conv {

namespace {

void check(cufftResult status, const char* call, int line) {
  if (status == CUFFT_SUCCESS) return;
  throw_library_error(static_cast<int>(status), "cuFFT error " + std::to_string(static_cast<int>(status)), call,
                      __FILE__, line);
}
#define GPULAB_CUFFT_CHECK(call) check((call), #call, __LINE__)

// Copies `planes` planes of h × w into the top-left of L_h × L_w planes, shifted by `offset`
// rows and columns, zeros elsewhere.
__global__ void pad_kernel(const float* src, float* dst, long planes, int h, int w, int lh, int lw, int offset) {
  const long total = planes * lh * lw;
  for (long i = long{blockIdx.x} * blockDim.x + threadIdx.x; i < total;
       i += static_cast<long>(gridDim.x) * blockDim.x) {
    const int col = static_cast<int>(i % lw) - offset, row = static_cast<int>(i / lw % lh) - offset;
    const long plane = i / (static_cast<long>(lw) * lh);
    dst[i] = (row >= 0 && row < h && col >= 0 && col < w) ? src[(plane * h + row) * w + col] : 0.0f;
  }
}

// Y[n,k](f) = Σ_c X[n,c](f) · conj(W[k,c](f)): one thread per (n, k, f).
__global__ void multiply_kernel(const cufftComplex* x, const cufftComplex* w, cufftComplex* y, int n_count, int k_count,
                                int channels, int freqs) {
  const long total = static_cast<long>(n_count) * k_count * freqs;
  for (long i = long{blockIdx.x} * blockDim.x + threadIdx.x; i < total;
       i += static_cast<long>(gridDim.x) * blockDim.x) {
    const int f = static_cast<int>(i % freqs), k = static_cast<int>(i / freqs % k_count);
    const int n = static_cast<int>(i / (static_cast<long>(freqs) * k_count));
    float re = 0.0f, im = 0.0f;
    for (int c = 0; c < channels; ++c) {
      const cufftComplex a = x[(static_cast<long>(n) * channels + c) * freqs + f];
      const cufftComplex b = w[(static_cast<long>(k) * channels + c) * freqs + f];
      re += a.x * b.x + a.y * b.y;
      im += a.y * b.x - a.x * b.y;
    }
    y[i] = make_float2(re, im);
  }
}

// Output (n, k, p, q) = the correlation at (p · stride, q · stride), scaled by 1 / (L_h · L_w).
__global__ void crop_kernel(const float* spatial, float* y, long total, int p_count, int q_count, int stride, int lh,
                            int lw, float scale) {
  for (long i = long{blockIdx.x} * blockDim.x + threadIdx.x; i < total;
       i += static_cast<long>(gridDim.x) * blockDim.x) {
    const int q = static_cast<int>(i % q_count), p = static_cast<int>(i / q_count % p_count);
    const long plane = i / (static_cast<long>(q_count) * p_count);
    y[i] = spatial[(plane * lh + p * stride) * lw + q * stride] * scale;
  }
}

// Plans and buffers for one shape, made on first use and kept (making them costs far more than a run).
struct FftPlan {
  Shape shape;
  int lh = 0, lw = 0, freqs = 0;
  cufftHandle handles[3] = {};  // images, filters, inverse
  int made = 0;                 // how many of them exist
  DeviceBuffer<float> padded_x, padded_w, spatial_y;
  DeviceBuffer<cufftComplex> spectra_x, spectra_w, spectra_y;

  explicit FftPlan(const Shape& s)
      : shape(s),
        lh(fft_size(s.h + 2 * s.pad)),
        lw(fft_size(s.w + 2 * s.pad)),
        freqs(lh * (lw / 2 + 1)),
        padded_x(static_cast<std::size_t>(s.n) * s.c * lh * lw, "padded images"),
        padded_w(static_cast<std::size_t>(s.k) * s.c * lh * lw, "padded filters"),
        spatial_y(static_cast<std::size_t>(s.n) * s.k * lh * lw, "correlations"),
        spectra_x(static_cast<std::size_t>(s.n) * s.c * freqs, "image spectra"),
        spectra_w(static_cast<std::size_t>(s.k) * s.c * freqs, "filter spectra"),
        spectra_y(static_cast<std::size_t>(s.n) * s.k * freqs, "output spectra") {
    int dims[2] = {lh, lw};
    try {
      const cufftType types[3] = {CUFFT_R2C, CUFFT_R2C, CUFFT_C2R};
      const int batches[3] = {s.n * s.c, s.k * s.c, s.n * s.k};
      for (; made < 3; ++made) {
        GPULAB_CUFFT_CHECK(
            cufftPlanMany(&handles[made], 2, dims, nullptr, 1, 0, nullptr, 1, 0, types[made], batches[made]));
      }
    } catch (...) {
      destroy();
      throw;
    }
  }
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;
  ~FftPlan() { destroy(); }

 private:
  void destroy() noexcept {
    for (int i = 0; i < made; ++i) cufftDestroy(handles[i]);
  }
};

}  // namespace

int fft_size(int extent) {
  for (int size = std::max(extent, 1);; ++size) {
    int rest = size;
    for (int prime : {2, 3, 5, 7}) {
      while (rest % prime == 0) rest /= prime;
    }
    if (rest == 1) return size;
  }
}

void fft(std::span<const float> x, std::span<const float> w, std::span<float> y, const Shape& shape) {
  gpulab::conv::check_shape(shape);
  if (x.size() != shape.input_size() || w.size() != shape.filter_size() || y.size() != shape.output_size()) {
    throw std::invalid_argument("fft: x, w and y must hold N·C·H·W, K·C·R·S and N·K·P·Q floats");
  }
  if (y.empty()) return;
  FftPlan& plan = plan_for<FftPlan>(shape);
  const int lh = plan.lh, lw = plan.lw;
  pad_kernel<<<grid_to_fill(plan.padded_x.size(), 256), 256>>>(
      x.data(), plan.padded_x.data(), static_cast<long>(shape.n) * shape.c, shape.h, shape.w, lh, lw, shape.pad);
  check_launch("pad_kernel", grid_to_fill(plan.padded_x.size(), 256), 256);
  pad_kernel<<<grid_to_fill(plan.padded_w.size(), 256), 256>>>(
      w.data(), plan.padded_w.data(), static_cast<long>(shape.k) * shape.c, shape.r, shape.s, lh, lw, 0);
  check_launch("pad_kernel", grid_to_fill(plan.padded_w.size(), 256), 256);
  GPULAB_CUFFT_CHECK(cufftExecR2C(plan.handles[0], plan.padded_x.data(), plan.spectra_x.data()));
  GPULAB_CUFFT_CHECK(cufftExecR2C(plan.handles[1], plan.padded_w.data(), plan.spectra_w.data()));
  multiply_kernel<<<grid_to_fill(plan.spectra_y.size(), 256), 256>>>(
      plan.spectra_x.data(), plan.spectra_w.data(), plan.spectra_y.data(), shape.n, shape.k, shape.c, plan.freqs);
  check_launch("multiply_kernel", grid_to_fill(plan.spectra_y.size(), 256), 256);
  GPULAB_CUFFT_CHECK(cufftExecC2R(plan.handles[2], plan.spectra_y.data(), plan.spatial_y.data()));
  crop_kernel<<<grid_to_fill(y.size(), 256), 256>>>(plan.spatial_y.data(), y.data(), static_cast<long>(y.size()),
                                                    shape.p(), shape.q(), shape.stride, lh, lw,
                                                    1.0f / (static_cast<float>(lh) * static_cast<float>(lw)));
  check_launch("crop_kernel", grid_to_fill(y.size(), 256), 256);
}

}  // namespace gpulab::conv
