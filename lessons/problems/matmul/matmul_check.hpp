#pragma once
// Checking a matrix product against float64, with a bound that grows with k.
//
// Each element of C = A · B is a sum of k products. Whatever order a kernel adds them in, with or
// without fused multiply-adds, float rounding keeps its error within γ_k · (|A|·|B|)_ij, where
// γ_k ≈ k · 2^-24 (the classic bound for summation). That is the tolerance, element by element:
// it grows with k and with the size of the terms, not with |C_ij|, which cancellation can make
// tiny. A missing or repeated term breaks it for nearly every element.
//
// Up to about 10^9 multiply-adds every element is checked. Above that the float64 reference of
// every element costs more than the run, so a sample is checked: every element of 64 rows and of
// 64 columns (the first and last of each always, the rest at random from the seed); every
// element for NaN and for the poison a kernel that never wrote it leaves behind; and every row
// sum and column sum of C against A·(B·1) and (1ᵀ·A)·B, which cost O(mk + kn). Their bound adds
// up the bounds of a whole row, so the sums catch gross errors anywhere (a tile never computed,
// garbage), not a small error in one element outside the sample.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/verify.hpp"
#include "problems/expected.hpp"

namespace gpulab {

struct CheckedElement {
  int row = 0, col = 0;
  double expected = 0, bound = 0;
};

struct ProductReference {
  int m = 0, n = 0, k = 0;
  bool sampled = false;
  std::vector<int> rows, cols;           // sampled only: the rows and columns checked in full
  std::vector<CheckedElement> elements;  // in row-major order when every element is checked
  // Sampled only: C·1 and 1ᵀ·C in float64, with their bounds.
  std::vector<double> row_sums, row_sum_bounds, col_sums, col_sum_bounds;
};

// The largest m·n·k checked element by element.
inline constexpr double kFullCheckWork = 1.1e9;

ProductReference product_reference(std::span<const float> a, std::span<const float> b, int m, int n, int k,
                                   std::uint64_t seed);

// Every element of A·B (row-major, m × k by k × n) with its bound, however large: the grader's
// matmul, row-sum and layer-gradient exercises (each a product: A·1, Δᵀ·x, 1ᵀ·Δ).
Expected product_expected(std::span<const float> a, std::span<const float> b, int m, int n, int k);

// `what` names the run: "matmul warp_tiled (gpu)". `bound_scale` widens every bound, for inputs
// rounded before the product (lesson 09: see input_rounding_scale).
CheckResult check_product(std::span<const float> c, const ProductReference& ref, const std::string& what,
                          double bound_scale = 1.0);

// The bound_scale for inputs each rounded with relative error at most u (2^-11 for FP16): a
// product of two rounded values is off by up to 2u + u² of |a·b|, on top of the sum's γ_k.
double input_rounding_scale(int k, double u);

}  // namespace gpulab
