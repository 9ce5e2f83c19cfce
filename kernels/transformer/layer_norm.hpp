#pragma once
// Layer norm over the rows of a rows × cols matrix, as a transformer applies it to each token:
//   y[r][c] = (x[r][c] − μ_r) / √(σ²_r + ε) · γ[c] + β[c]
// with μ_r the row's mean and σ²_r its variance (divided by cols, as PyTorch's layer_norm), γ and
// β one weight and one bias a column, ε = 1e-5.
#include <cstddef>
#include <span>

namespace gpulab::transformer {

inline constexpr float kLayerNormEpsilon = 1e-5f;

// The inputs of every layer-norm function: x (rows × cols), γ and β (cols each).
struct LayerNormInputs {
  std::span<const float> x, gamma, beta;
};

// One CPU thread, a row at a time: the mean, then the variance around it, then the outputs.
void layer_norm_cpu_rows(LayerNormInputs in, std::span<float> y, std::size_t rows, std::size_t cols);

}  // namespace gpulab::transformer

// The GPU launchers: spans of device memory, queued on the device the thread chose (common/backend.hpp).
namespace gpulab::transformer {

// A block per row, three passes: the mean, the variance around it, the outputs.
void layer_norm_two_pass(LayerNormInputs in, std::span<float> y, std::size_t rows, std::size_t cols);
// A block per row, Σx and Σx² in one pass, σ² = Σx²/n − μ²: the textbook formula, which cancels
// catastrophically when the mean is large against the spread. Wrong on purpose (the tests prove
// the check catches it).
void layer_norm_sum_of_squares(LayerNormInputs in, std::span<float> y, std::size_t rows, std::size_t cols);
// A warp per row, the mean and variance in one pass by Welford's update, the warps' partial
// statistics combined by Chan's formula through shuffles.
void layer_norm_welford_warp(LayerNormInputs in, std::span<float> y, std::size_t rows, std::size_t cols);
// A block per row, the row read once into registers as float4 (up to 32768 floats), the two
// passes over the registers: one read of x, one write of y. Rows of no multiple of 4 or longer
// go to layer_norm_welford_warp.
void layer_norm_registers(LayerNormInputs in, std::span<float> y, std::size_t rows, std::size_t cols);

}  // namespace gpulab::transformer
