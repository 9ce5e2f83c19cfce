#pragma once
// bins[v] = how many bytes of x equal v: exact. Lesson 14's check and the grader's histogram
// exercise (inputs uniform bytes, or skewed: most of them one value, so many threads add to one
// bin at once).
#include <algorithm>
#include <cstddef>
#include <span>

namespace gpulab::histogram_problem {

inline constexpr unsigned char kCommonValue = 42;  // the value skewed inputs repeat

// `bins` zeroed, then counted.
template <class Count, class T>
void count(std::span<const T> x, std::span<Count> bins) {
  std::fill(bins.begin(), bins.end(), Count{0});
  for (const T v : x) bins[static_cast<std::size_t>(v)] += 1;
}

}  // namespace gpulab::histogram_problem
