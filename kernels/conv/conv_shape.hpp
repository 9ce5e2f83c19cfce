#pragma once
// The shape of a 2-D convolution layer, as deep-learning frameworks define it (cross-correlation,
// NCHW): an input of N images of C channels, H × W each; K filters of C × R × S; zero padding
// `pad` on every side; a step of `stride` between windows. The output is N × K × P × Q.
#include <cstddef>
#include <stdexcept>
#include <string>

// p() and q() are called by kernels too.
#if defined(__CUDACC__)
#define GPULAB_HOST_DEVICE __host__ __device__
#else
#define GPULAB_HOST_DEVICE
#endif

namespace gpulab::conv {

struct Shape {
  int n = 1, c = 1, h = 1, w = 1;  // input: images, channels, height, width
  int k = 1, r = 1, s = 1;         // filters and their height and width
  int pad = 0, stride = 1;

  GPULAB_HOST_DEVICE int p() const { return (h + 2 * pad - r) / stride + 1; }  // output height
  GPULAB_HOST_DEVICE int q() const { return (w + 2 * pad - s) / stride + 1; }  // output width
  std::size_t input_size() const { return count(n, c, h, w); }
  std::size_t filter_size() const { return count(k, c, r, s); }
  std::size_t output_size() const { return count(n, k, p(), q()); }
  // Multiply-adds of the direct convolution: every output sums C · R · S products.
  double macs() const { return static_cast<double>(output_size()) * c * r * s; }
  bool operator==(const Shape&) const = default;

 private:
  static std::size_t count(long a, long b, long c_, long d) {
    return static_cast<std::size_t>(a) * static_cast<std::size_t>(b) * static_cast<std::size_t>(c_) *
           static_cast<std::size_t>(d);
  }
};

// The limits every variant is written for (the kernels index with int, the tiled kernels keep an
// input tile with its halo in 48 KB of shared memory). Throws std::invalid_argument, saying why.
inline void check_shape(const Shape& s) {
  auto fail = [](const std::string& why) { throw std::invalid_argument("convolution shape: " + why); };
  if (s.n < 0 || s.c < 1 || s.h < 1 || s.w < 1 || s.k < 0) {
    fail("N and K must be >= 0, C, H and W >= 1");
  }
  if (s.r < 1 || s.s < 1 || s.r > 32 || s.s > 32) fail("filters must be 1 × 1 to 32 × 32");
  if (s.pad < 0 || s.pad > 32) fail("padding must be 0 to 32");
  if (s.stride < 1 || s.stride > 4) fail("the stride must be 1 to 4");
  if (s.h + 2 * s.pad < s.r || s.w + 2 * s.pad < s.s) fail("the filter is larger than the padded image");
  constexpr std::size_t limit = std::size_t{1} << 31;
  if (s.input_size() >= limit || s.output_size() >= limit || s.filter_size() >= limit) {
    fail("the input, the filters and the output must each have fewer than 2^31 elements");
  }
}

// "64×64×56×56 → 64, 3×3, pad 1, stride 1"
inline std::string to_string(const Shape& s) {
  return std::to_string(s.n) + "×" + std::to_string(s.c) + "×" + std::to_string(s.h) + "×" + std::to_string(s.w) +
         " → " + std::to_string(s.k) + ", " + std::to_string(s.r) + "×" + std::to_string(s.s) + ", pad " +
         std::to_string(s.pad) + ", stride " + std::to_string(s.stride);
}

}  // namespace gpulab::conv
