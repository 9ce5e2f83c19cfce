// Layer norm over rows on the CPU (layer_norm.hpp).
#include <cmath>

#include "transformer/layer_norm.hpp"

namespace gpulab::transformer {

void layer_norm_cpu_rows(LayerNormInputs in, std::span<float> y, std::size_t rows, std::size_t cols) {
  for (std::size_t r = 0; r < rows; ++r) {
    const float* x = in.x.data() + r * cols;
    float* out = y.data() + r * cols;
    float sum = 0;
    for (std::size_t c = 0; c < cols; ++c) sum += x[c];
    const float mean = sum / static_cast<float>(cols);
    float squares = 0;
    for (std::size_t c = 0; c < cols; ++c) squares += (x[c] - mean) * (x[c] - mean);
    const float scale = 1.0f / std::sqrt(squares / static_cast<float>(cols) + kLayerNormEpsilon);
    for (std::size_t c = 0; c < cols; ++c) out[c] = (x[c] - mean) * scale * in.gamma[c] + in.beta[c];
  }
}

}  // namespace gpulab::transformer
