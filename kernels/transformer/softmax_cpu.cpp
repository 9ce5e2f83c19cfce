// Softmax over rows on the CPU (softmax.hpp).
#include <algorithm>
#include <cmath>
#include <limits>

#include "transformer/softmax.hpp"

namespace gpulab::transformer {

void softmax_cpu_rows(std::span<const float> x, std::span<float> y, std::size_t rows, std::size_t cols) {
  for (std::size_t r = 0; r < rows; ++r) {
    const float* in = x.data() + r * cols;
    float* out = y.data() + r * cols;
    float m = -std::numeric_limits<float>::infinity();
    for (std::size_t c = 0; c < cols; ++c) m = std::max(m, in[c]);
    float sum = 0;
    for (std::size_t c = 0; c < cols; ++c) sum += std::exp(in[c] - m);
    for (std::size_t c = 0; c < cols; ++c) out[c] = std::exp(in[c] - m) / sum;
  }
}

}  // namespace gpulab::transformer
