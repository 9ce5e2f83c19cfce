#pragma once
// The softmax of each row of x (rows × cols): y = e^(x − m) / Σ e^(x − m), m the row's maximum,
// in float64 — lesson 17's check and the grader's softmax_rows exercise.
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "problems/expected.hpp"

namespace gpulab::softmax_problem {

// A row whose maximum is −inf is NaN throughout, as PyTorch's.
template <class T>
void softmax_rows(std::span<const T> x, std::size_t rows, std::size_t cols, std::span<double> y) {
  for (std::size_t r = 0; r < rows; ++r) {
    const T* row = x.data() + r * cols;
    double m = -std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < cols; ++c) m = std::max(m, static_cast<double>(row[c]));
    double sum = 0;
    for (std::size_t c = 0; c < cols; ++c) sum += std::exp(static_cast<double>(row[c]) - m);
    for (std::size_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(static_cast<double>(row[c]) - m) / sum;
  }
}

// The bound follows the arithmetic: each output is e^(x − m) (expf: 2 ulp, and x − m exact where
// the term matters) over a float sum of up to `cols` positive terms, whose relative error is at
// most (terms − 1) · 2^-24 when one thread adds them in a row (any order adds no more). Outputs
// under 1e-36 (denormal) pass on the absolute floor.
inline Tolerance tolerance(std::size_t cols) { return {8e-7 + (static_cast<double>(cols) + 4) * kFloatUnit, 1e-36}; }

}  // namespace gpulab::softmax_problem
