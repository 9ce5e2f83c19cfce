#pragma once
// Problems made of rows of one length, each row a kernel's unit of work (softmax and layer norm,
// lessons 17 and 18): n, the size sweeps and plots use, is the row length; --n gives 1024 rows
// of n, --shape ROWSxCOLS any other.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/lesson.hpp"
#include "common/rows_by_cols.hpp"

namespace gpulab {

inline Problem rows_problem(std::int64_t rows, std::int64_t cols) { return {cols, {{"rows", rows}, {"cols", cols}}}; }
inline Problem rows_problem_of_n(std::int64_t n) { return rows_problem(1024, n); }

inline Problem parse_rows_problem(const std::string& text) {
  const auto shape = parse_rows_by_cols(text, 0, std::int64_t{1} << 30);
  if (!shape || shape->first * shape->second > (std::int64_t{1} << 31)) {
    throw std::invalid_argument("expected ROWSxCOLS, each 0 to 2^30, at most 2^31 elements");
  }
  return rows_problem(shape->first, shape->second);
}

inline std::size_t rows_in(const Problem& p) { return static_cast<std::size_t>(p.dim("rows", 1024)); }
inline std::size_t cols_in(const Problem& p) { return static_cast<std::size_t>(p.dim("cols", p.n)); }
inline double elements_in(const Problem& p) {
  return static_cast<double>(rows_in(p)) * static_cast<double>(cols_in(p));
}

// The sizes both lessons use: the problem from --n and --shape, the help.
inline void use_row_problems(Lesson& l) {
  l.size_help = "the row length, 1024 rows (--shape ROWSxCOLS for others)";
  l.problem = rows_problem_of_n;
  l.parse_shape = parse_rows_problem;
  l.shape_help = "ROWSxCOLS, e.g. 4096x8192";
}

}  // namespace gpulab
