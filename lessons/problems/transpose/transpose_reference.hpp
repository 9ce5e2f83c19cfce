#pragma once
// b (cols × rows) = aᵀ for a (rows × cols), both row-major: exact. Lesson 12's check and the
// grader's transpose exercise.
#include <cstddef>

namespace gpulab::transpose_problem {

// Where b's element i comes from in a: b's (row c, column r), c = i / rows, r = i % rows, is a's (r, c).
inline std::size_t source_of(std::size_t i, std::size_t rows, std::size_t cols) { return i % rows * cols + i / rows; }

}  // namespace gpulab::transpose_problem
