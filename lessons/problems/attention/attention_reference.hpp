#pragma once
// Attention for one head, o = softmax(q kᵀ / √d) v (seq × d each, row-major), causal or not, in
// float64 — lesson 19's check (each head of a batch) and the grader's attention_head exercise.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "problems/expected.hpp"

namespace gpulab::attention_problem {

// One query row i: its d outputs into o[0 … d). With `kWithBound`, also Σ_j p_j |v_jc| for each c
// into `weighted` (what a float kernel's rounding of the weighted sum is relative to), and the
// return value is the row's largest Σ_c |q_ic k_jc| / √d (how far a float score may be off, in
// units of its rounding); without it (the lesson's reference of every head), neither is computed.
template <bool kWithBound, class T>
double attention_row(const T* q, const T* k, const T* v, std::size_t seq, std::size_t d, bool causal, std::size_t i,
                     double* o, double* weighted = nullptr) {
  const double scale = 1 / std::sqrt(static_cast<double>(d));
  const std::size_t keys = causal ? i + 1 : seq;
  std::vector<double> p(keys);
  double m = -std::numeric_limits<double>::infinity(), largest = 0;
  for (std::size_t j = 0; j < keys; ++j) {
    double dot = 0, magnitude = 0;
    for (std::size_t c = 0; c < d; ++c) {
      const double term = static_cast<double>(q[i * d + c]) * static_cast<double>(k[j * d + c]);
      dot += term;
      if constexpr (kWithBound) magnitude += std::abs(term);
    }
    p[j] = dot * scale;
    m = std::max(m, p[j]);
    if constexpr (kWithBound) largest = std::max(largest, magnitude * scale);
  }
  double sum = 0;
  for (double& w : p) sum += w = std::exp(w - m);
  for (std::size_t c = 0; c < d; ++c) {
    double value = 0, weight = 0;
    for (std::size_t j = 0; j < keys; ++j) {
      value += p[j] / sum * static_cast<double>(v[j * d + c]);
      if constexpr (kWithBound) weight += p[j] / sum * std::abs(static_cast<double>(v[j * d + c]));
    }
    o[c] = value;
    if constexpr (kWithBound) weighted[c] = weight;
  }
  return largest;
}

// The bound for 16-bit storage and float sums (lesson 19's rungs), per output: a score's d
// products are exact in FP32 (16-bit inputs), their sum is off by up to d·2^-24 of Σ|q k|, which
// with the scale and the exponential's few roundings moves each weight by a factor of up to 1 + δ,
// δ = (d + 16)·2^-24·(1 + d·max|q|·max|k|/√d); the output then by 2δ·max|v| (numerator and sum).
// The sum of up to seq weights adds seq·2^-24 of it; the tensor-core rungs round each weight to 16
// bits before P V (`weight_roundoff`: 2^-11 for FP16, 2^-8 for BF16, twice, the sum being of the
// unrounded weights). One bound for every output, from the inputs' largest magnitudes.
inline Tolerance sixteen_bit_tolerance(std::size_t head_dim, std::size_t seq, double q_max, double k_max, double v_max,
                                       double weight_roundoff) {
  const auto d = static_cast<double>(head_dim);
  const double delta = (d + 16) * kFloatUnit * (1 + d * q_max * k_max / std::sqrt(d));
  return {0, v_max * (2 * weight_roundoff + 2 * delta + (static_cast<double>(seq) + 8) * kFloatUnit) + kTinyBound};
}

// The bound for float storage and float sums (the exercise): a score's float sum of d products is
// off by up to (d + 8)·u of its magnitude, which moves a weight by that factor (δ); each output is
// off by up to 2δ and the sums' own rounding (seq + d terms) times Σ p|v|, twice over for room.
template <class T>
Expected one_head(const T* q, const T* k, const T* v, std::size_t seq, std::size_t d, bool causal) {
  Expected e;
  e.value.assign(seq * d, 0.0);
  e.bound.assign(seq * d, 0.0);
  std::vector<double> weighted(d);
  for (std::size_t i = 0; i < seq; ++i) {
    const double largest = attention_row<true>(q, k, v, seq, d, causal, i, &e.value[i * d], weighted.data());
    const double delta = static_cast<double>(d + 8) * kFloatUnit * (1 + largest);
    const double rounding = 2 * (2 * delta + static_cast<double>(seq + d + 8) * kFloatUnit);
    for (std::size_t c = 0; c < d; ++c) e.bound[i * d + c] = rounding * weighted[c] + kTinyBound;
  }
  return e;
}

}  // namespace gpulab::attention_problem
