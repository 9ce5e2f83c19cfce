// Attention on the CPU (attention.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "transformer/attention.hpp"

namespace gpulab::transformer {

void attention_cpu_rows(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                        std::span<float> o, const AttentionShape& shape) {
  const std::size_t n = shape.seq, d = shape.head_dim;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  std::vector<float> p(n);
  for (std::size_t h = 0; h < shape.batch_heads; ++h) {
    const float *qh = q.data() + h * n * d, *kh = k.data() + h * n * d, *vh = v.data() + h * n * d;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t keys = shape.causal ? i + 1 : n;
      float m = -std::numeric_limits<float>::infinity();
      for (std::size_t j = 0; j < keys; ++j) {
        float s = 0;
        for (std::size_t c = 0; c < d; ++c) s += qh[i * d + c] * kh[j * d + c];
        p[j] = s * scale;
        m = std::max(m, p[j]);
      }
      float sum = 0;
      for (std::size_t j = 0; j < keys; ++j) sum += p[j] = std::exp(p[j] - m);
      float* out = o.data() + (h * n + i) * d;
      std::fill(out, out + d, 0.0f);
      for (std::size_t j = 0; j < keys; ++j) {
        for (std::size_t c = 0; c < d; ++c) out[c] += p[j] * vh[j * d + c];
      }
      for (std::size_t c = 0; c < d; ++c) out[c] /= sum;
    }
  }
}

}  // namespace gpulab::transformer
