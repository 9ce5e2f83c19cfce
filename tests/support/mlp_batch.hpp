#pragma once
// Test helpers for lesson 07's network: a random batch, and the relative difference of two vectors.
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/random.hpp"
#include "mlp/mlp.hpp"

namespace gpulab::test {

inline double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += (a[i] - b[i]) * (a[i] - b[i]);
    norm += b[i] * b[i];
  }
  return std::sqrt(diff / norm);
}

struct Batch {
  std::vector<float> x, t;
};

inline Batch random_batch(const mlp::Layout& net, int batch, std::uint64_t seed, bool binary_targets) {
  Batch b{std::vector<float>(static_cast<std::size_t>(batch) * net.inputs()),
          std::vector<float>(static_cast<std::size_t>(batch) * net.outputs())};
  fill_uniform(b.x, seed, 10, -1.0f, 1.0f);
  fill_uniform(b.t, seed, 11, 0.0f, 1.0f);
  if (binary_targets) {
    for (float& v : b.t) v = v > 0.5f ? 1.0f : 0.0f;
  }
  return b;
}

}  // namespace gpulab::test
