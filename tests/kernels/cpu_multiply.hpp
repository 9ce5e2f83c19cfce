#pragma once
// One CPU loop, C = A B for n × n matrices (i, j, k order, as a learner first writes it), compiled
// twice: in a kernel file (emulator_kernels.cu, whose emulated build carries the checked mode's
// instrumentation) and in plain C++ (emulator_benchmark.cpp). The two times say what host code in
// a .cu file pays for being compiled with its kernels. (An anonymous namespace: each file keeps
// its own copy, which the linker must not merge.)
#include <cstddef>

namespace {

inline void multiply_on_cpu(const float* a, const float* b, float* c, int n) {
  const auto at = [n](int row, int col) { return static_cast<std::size_t>(row) * static_cast<std::size_t>(n) + col; };
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      float sum = 0;
      for (int k = 0; k < n; ++k) sum += a[at(i, k)] * b[at(k, j)];
      c[at(i, j)] = sum;
    }
  }
}

}  // namespace
