#pragma once
// Checking a convolution against float64, with a bound per element that fits each algorithm.
//
// Output (n, k, p, q) is a sum of C·R·S products. Computed directly (in any order, with or
// without fused multiply-adds) its error stays within γ · Σ|x·w| over its window, γ = 2·C·R·S·2⁻²⁴
// (as lesson 05's bound for k terms). Two algorithms round differently, and get their own bounds:
// - Winograd F(2×2, 3×3) multiplies transformed values, sums of up to 4 inputs and up to 9
//   weights (halved): the products and their sums are larger than the terms of the direct sum,
//   so the bound is 4 · (2·C·R·S + 16) · 2⁻²⁴ · Σ|x·w|.
// - Winograd F(4×4, 3×3) does the same with larger constants: how far a transform can magnify
//   its inputs along one dimension, max_i Σ_a |Aᵀ_ia| · Σ_j |G_aj| · Σ_j |Bᵀ_aj|, is 8 for
//   F(2×2) and 48 for F(4×4) — (48 / 8)² = 36 times in two dimensions, so 36 times the bound.
// - FFT spreads every output's rounding over the whole plane: its error depends on the norms of
//   the whole image and filter, not on the window, and grows with log L: the bound is
//   8 · (log₂(L_h·L_w) + C) · 2⁻²⁴ · ‖x_n‖₂ · ‖w_k‖₂.
// ReLU(· + bias) moves no value further from its reference than it was, so the fused variants
// keep the bound (plus one rounding of the addition).
//
// Up to kFullCheckMacs multiply-adds every element is checked. Above that, every element of 64
// output rows (n, k, p) — the first and last always, the rest from the seed — and 2048 single
// elements drawn from the seed; and every element for NaN and for the poison a kernel that never
// wrote it leaves behind.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/verify.hpp"
#include "conv/conv_shape.hpp"
#include "problems/expected.hpp"

namespace gpulab {

enum class ConvArithmetic { direct, winograd, winograd_4x4, fft };

struct ConvReference {
  conv::Shape shape;
  bool sampled = false;
  std::vector<std::size_t> index;               // sampled only: the elements checked (flat NCHW indices)
  std::vector<double> expected;                 // x ⋆ w at each checked element (every element when not sampled)
  std::vector<double> magnitude;                // Σ|x·w| over its window
  std::vector<double> image_norm, filter_norm;  // ‖x_n‖₂ and ‖w_k‖₂, for the FFT's bound
  // max |x_n| · Σ|w_k|: the largest Σ|x·w| any window of image n and filter k can have (Winograd's
  // bound: its transforms mix a whole tile's inputs into each output of the tile).
  std::vector<double> image_max, filter_abs_sum;
  std::vector<float> bias;  // for the fused variants: ReLU(x ⋆ w + bias[k])
};

inline constexpr double kFullCheckMacs = 2e8;

ConvReference conv_reference(std::span<const float> x, std::span<const float> w, std::span<const float> bias,
                             const conv::Shape& shape, std::uint64_t seed);

// Every element of a reference made whole (not sampled) with its direct sum's bound: what the
// grader checks a learner's convolution against.
Expected direct_expected(const ConvReference& ref);

// `what` names the run: "conv winograd (gpu)". `bias_relu`: y is ReLU(x ⋆ w + bias).
CheckResult check_conv(std::span<const float> y, const ConvReference& ref, ConvArithmetic arithmetic, bool bias_relu,
                       const std::string& what);

}  // namespace gpulab
