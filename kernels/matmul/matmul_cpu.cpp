// Matrix multiply on the CPU: the naive loops, the reordered loops, the dispatcher of the blocked
// version (matmul_cpu_blocked.inc, built once per instruction set), and OpenBLAS.
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "matmul/matmul.hpp"
#include "matmul/matmul_cpu_blocked.hpp"

namespace gpulab::matmul {

int blocked::max_threads() { return omp_get_max_threads(); }

namespace {

void check_shapes(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  if (m < 0 || n < 0 || k < 0) throw std::invalid_argument("matmul: m, n and k must not be negative");
  const auto sm = static_cast<std::size_t>(m), sn = static_cast<std::size_t>(n), sk = static_cast<std::size_t>(k);
  if (a.size() != sm * sk || b.size() != sk * sn || c.size() != sm * sn)
    throw std::invalid_argument("matmul: A must hold m·k, B k·n and C m·n floats");
}

std::size_t at(int row, int col, int cols) {
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(col);
}

using BlockedGemm = void (*)(const float*, const float*, float*, int, int, int, float*, float*);

struct Blocked {
  BlockedGemm gemm;
  blocked::Sizes sizes;
  const char* isa;
};

// The widest vector instructions this CPU has, chosen once.
const Blocked& blocked_for_this_cpu() {
  static const Blocked chosen = [] {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq"))
      return Blocked{blocked::avx512::gemm, blocked::avx512::sizes(), "AVX-512"};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      return Blocked{blocked::avx2::gemm, blocked::avx2::sizes(), "AVX2 + FMA"};
#endif
    return Blocked{blocked::generic::gemm, blocked::generic::sizes(), "SSE"};
  }();
  return chosen;
}

}  // namespace

// [snippet:cpu_naive]
void cpu_naive(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  check_shapes(a, b, c, m, n, k);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (int p = 0; p < k; ++p) sum += a[at(i, p, k)] * b[at(p, j, n)];  // b: a stride of n floats
      c[at(i, j, n)] = sum;
    }
  }
}
// [/snippet]

// [snippet:cpu_ikj]
void cpu_ikj_threads(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  check_shapes(a, b, c, m, n, k);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < m; ++i) {
    float* crow = c.data() + at(i, 0, n);
    std::fill(crow, crow + n, 0.0f);
    for (int p = 0; p < k; ++p) {
      const float aip = a[at(i, p, k)];
      const float* brow = b.data() + at(p, 0, n);
      for (int j = 0; j < n; ++j) crow[j] += aip * brow[j];  // contiguous: vectorised
    }
  }
}
// [/snippet]

void cpu_blocked(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  check_shapes(a, b, c, m, n, k);
  if (c.empty()) return;
  if (k == 0) {
    std::fill(c.begin(), c.end(), 0.0f);
    return;
  }
  const Blocked& impl = blocked_for_this_cpu();
  // The packed panels live here, so the per-instruction-set files need no standard containers.
  std::vector<float> b_panel(impl.sizes.b_panel_floats(n));
  std::vector<float> a_blocks(impl.sizes.a_block_floats() * static_cast<std::size_t>(blocked::max_threads()));
  impl.gemm(a.data(), b.data(), c.data(), m, n, k, b_panel.data(), a_blocks.data());
}

const char* cpu_blocked_isa() { return blocked_for_this_cpu().isa; }

void cpu_openblas(std::span<const float> a, std::span<const float> b, std::span<float> c, int m, int n, int k) {
  check_shapes(a, b, c, m, n, k);
  if (c.empty()) return;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a.data(), std::max(k, 1), b.data(),
              std::max(n, 1), 0.0f, c.data(), std::max(n, 1));
}

}  // namespace gpulab::matmul
