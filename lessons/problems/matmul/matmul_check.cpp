#include "problems/matmul/matmul_check.hpp"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "common/random.hpp"

namespace gpulab {

namespace {

// γ_k with a factor of 2 to spare: the float64 reference and the sums of C add their own roundings.
double gamma(int k) { return 2.0 * k * std::ldexp(1.0, -24); }

std::size_t at(int row, int col, int cols) {
  return static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(col);
}

// Every element: C and |A|·|B| in float64 with OpenBLAS's dgemm (the float64 product is the
// reference; which library computes it matters as little as which computer).
void full_reference(std::span<const float> a, std::span<const float> b, ProductReference& r) {
  const auto mk = a.size(), kn = b.size();
  std::vector<double> a64(mk), b64(kn), abs_a(mk), abs_b(kn);
  for (std::size_t i = 0; i < mk; ++i) abs_a[i] = std::abs(a64[i] = a[i]);
  for (std::size_t i = 0; i < kn; ++i) abs_b[i] = std::abs(b64[i] = b[i]);
  const std::size_t mn = static_cast<std::size_t>(r.m) * static_cast<std::size_t>(r.n);
  std::vector<double> expected(mn, 0.0), bound(mn, 0.0);
  if (r.k > 0) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, r.m, r.n, r.k, 1.0, a64.data(), r.k, b64.data(), r.n, 0.0,
                expected.data(), r.n);
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, r.m, r.n, r.k, gamma(r.k), abs_a.data(), r.k, abs_b.data(),
                r.n, 0.0, bound.data(), r.n);
  }
  r.elements.resize(mn);
  for (int i = 0; i < r.m; ++i) {
    for (int j = 0; j < r.n; ++j) {
      const std::size_t e = at(i, j, r.n);
      r.elements[e] = {i, j, expected[e], bound[e]};
    }
  }
}

}  // namespace

Expected product_expected(std::span<const float> a, std::span<const float> b, int m, int n, int k) {
  ProductReference r;
  r.m = m, r.n = n, r.k = k;
  full_reference(a, b, r);
  Expected e;
  for (const CheckedElement& x : r.elements) {
    e.value.push_back(x.expected);
    e.bound.push_back(x.bound);
  }
  return e;
}

namespace {

// Every element of the sampled rows and columns, and the row and column sums of C from A and B.
void sampled_reference(std::span<const float> a, std::span<const float> b, ProductReference& r) {
  const std::size_t nr = r.rows.size(), nc = r.cols.size();
  const auto un = static_cast<std::size_t>(r.n), um = static_cast<std::size_t>(r.m);
  r.elements.resize(nr * un + nc * um);
  // A sampled row of C: the rows of B weighted by the row of A (contiguous, vectorised).
#pragma omp parallel for schedule(dynamic)
  for (std::size_t s = 0; s < nr; ++s) {
    std::vector<double> sum(un, 0.0), abs_sum(un, 0.0);
    for (int p = 0; p < r.k; ++p) {
      const double w = a[at(r.rows[s], p, r.k)];
      const float* brow = b.data() + at(p, 0, r.n);
      for (std::size_t j = 0; j < un; ++j) {
        sum[j] += w * brow[j];
        abs_sum[j] += std::abs(w * brow[j]);
      }
    }
    for (std::size_t j = 0; j < un; ++j)
      r.elements[s * un + j] = {r.rows[s], static_cast<int>(j), sum[j], gamma(r.k) * abs_sum[j]};
  }
  // A sampled column of C: dot products of the rows of A with that column of B, copied out first.
#pragma omp parallel for schedule(dynamic)
  for (std::size_t s = 0; s < nc; ++s) {
    std::vector<double> column(static_cast<std::size_t>(r.k));
    for (int p = 0; p < r.k; ++p) column[static_cast<std::size_t>(p)] = b[at(p, r.cols[s], r.n)];
    for (int i = 0; i < r.m; ++i) {
      const float* arow = a.data() + at(i, 0, r.k);
      double sum = 0, abs_sum = 0;
      for (int p = 0; p < r.k; ++p) {
        sum += arow[p] * column[static_cast<std::size_t>(p)];
        abs_sum += std::abs(arow[p] * column[static_cast<std::size_t>(p)]);
      }
      r.elements[nr * un + s * um + static_cast<std::size_t>(i)] = {i, r.cols[s], sum, gamma(r.k) * abs_sum};
    }
  }
  // B·1 and |B|·1 (length k), 1ᵀ·A and 1ᵀ·|A| (length k).
  std::vector<double> b_rows(static_cast<std::size_t>(r.k)), abs_b_rows(b_rows.size());
  std::vector<double> a_cols(b_rows.size()), abs_a_cols(b_rows.size());
  for (int p = 0; p < r.k; ++p) {
    for (int j = 0; j < r.n; ++j) {
      const double v = b[at(p, j, r.n)];
      b_rows[static_cast<std::size_t>(p)] += v;
      abs_b_rows[static_cast<std::size_t>(p)] += std::abs(v);
    }
  }
  for (int i = 0; i < r.m; ++i) {
    for (int p = 0; p < r.k; ++p) {
      const double v = a[at(i, p, r.k)];
      a_cols[static_cast<std::size_t>(p)] += v;
      abs_a_cols[static_cast<std::size_t>(p)] += std::abs(v);
    }
  }
  r.row_sums.assign(static_cast<std::size_t>(r.m), 0.0);
  r.row_sum_bounds.assign(r.row_sums.size(), 0.0);
#pragma omp parallel for schedule(static)
  for (int i = 0; i < r.m; ++i) {
    double s = 0, bound = 0;
    for (int p = 0; p < r.k; ++p) {
      const double v = a[at(i, p, r.k)];
      s += v * b_rows[static_cast<std::size_t>(p)];
      bound += std::abs(v) * abs_b_rows[static_cast<std::size_t>(p)];
    }
    r.row_sums[static_cast<std::size_t>(i)] = s;
    r.row_sum_bounds[static_cast<std::size_t>(i)] = gamma(r.k) * bound;
  }
  r.col_sums.assign(static_cast<std::size_t>(r.n), 0.0);
  r.col_sum_bounds.assign(r.col_sums.size(), 0.0);
  for (int p = 0; p < r.k; ++p) {
    const double w = a_cols[static_cast<std::size_t>(p)], abs_w = abs_a_cols[static_cast<std::size_t>(p)];
    for (int j = 0; j < r.n; ++j) {
      const double v = b[at(p, j, r.n)];
      r.col_sums[static_cast<std::size_t>(j)] += w * v;
      r.col_sum_bounds[static_cast<std::size_t>(j)] += abs_w * std::abs(v);
    }
  }
  for (double& x : r.col_sum_bounds) x *= gamma(r.k);
}

}  // namespace

ProductReference product_reference(std::span<const float> a, std::span<const float> b, int m, int n, int k,
                                   std::uint64_t seed) {
  ProductReference r;
  r.m = m;
  r.n = n;
  r.k = k;
  r.sampled = static_cast<double>(m) * n * k > kFullCheckWork;
  if (!r.sampled) {
    full_reference(a, b, r);
  } else {
    for (auto i : sample_indices(m, 64, seed ^ 0x726f7773)) r.rows.push_back(static_cast<int>(i));
    for (auto j : sample_indices(n, 64, seed ^ 0x636f6c73)) r.cols.push_back(static_cast<int>(j));
    sampled_reference(a, b, r);
  }
  return r;
}

double input_rounding_scale(int k, double u) { return k == 0 ? 1.0 : 1.0 + (2 * u + u * u) / gamma(k); }

CheckResult check_product(std::span<const float> c, const ProductReference& ref, const std::string& what,
                          double bound_scale) {
  CheckResult r;
  r.checked = ref.elements.size();
  if (c.size() != static_cast<std::size_t>(ref.m) * static_cast<std::size_t>(ref.n)) {
    r.passed = false;
    r.rel_error = std::numeric_limits<double>::infinity();
    r.message = fmt::format("{}: C has {} elements, expected {} × {}", what, c.size(), ref.m, ref.n);
    return r;
  }
  double diff2 = 0, ref2 = 0;
  std::size_t bad = 0;
  const auto count = static_cast<std::ptrdiff_t>(ref.elements.size());
#pragma omp parallel for reduction(+ : diff2, ref2, bad) schedule(static)
  for (std::ptrdiff_t e = 0; e < count; ++e) {
    const CheckedElement& x = ref.elements[static_cast<std::size_t>(e)];
    const double got = c[at(x.row, x.col, ref.n)];
    if (!within_bound(got, x.expected, x.bound * bound_scale)) ++bad;
    diff2 += std::isfinite(got) ? (got - x.expected) * (got - x.expected) : std::numeric_limits<double>::infinity();
    ref2 += x.expected * x.expected;
  }
  r.rel_error = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  r.mismatches = bad;
  if (bad > 0) {
    for (const CheckedElement& x : ref.elements) {
      const double got = c[at(x.row, x.col, ref.n)];
      if (within_bound(got, x.expected, x.bound * bound_scale)) continue;
      r.first.push_back({at(x.row, x.col, ref.n), x.expected, got});
      r.passed = false;
      r.message = fmt::format("{}: {} of {} {}elements differ; first at ({}, {}): expected {:.9g}, got {:.9g} ({})",
                              what, bad, r.checked, ref.sampled ? "checked " : "", x.row, x.col, x.expected, got,
                              bound_detail(got, x.expected, x.bound * bound_scale));
      break;
    }
    return r;
  }
  if (!ref.sampled) return r;

  // Sampled: every element for poison and NaN, then every row and column sum.
  for (std::size_t e = 0; e < c.size(); ++e) {
    if (is_poison(c[e]) || std::isnan(c[e])) {
      const int row = static_cast<int>(e / static_cast<std::size_t>(ref.n)),
                col = static_cast<int>(e % static_cast<std::size_t>(ref.n));
      r.passed = false;
      r.mismatches = 1;
      r.first.push_back({e, std::numeric_limits<double>::quiet_NaN(), c[e]});
      r.message = fmt::format("{}: element ({}, {}) is {}", what, row, col,
                              is_poison(c[e]) ? "never written: does every element of C have a thread?" : "NaN");
      return r;
    }
  }
  std::vector<double> row_sums(static_cast<std::size_t>(ref.m), 0.0), col_sums(static_cast<std::size_t>(ref.n), 0.0);
  for (int i = 0; i < ref.m; ++i) {
    for (int j = 0; j < ref.n; ++j) {
      const double v = c[at(i, j, ref.n)];
      row_sums[static_cast<std::size_t>(i)] += v;
      col_sums[static_cast<std::size_t>(j)] += v;
    }
  }
  auto sums_ok = [&](const std::vector<double>& got, const std::vector<double>& expected,
                     const std::vector<double>& bound, const char* kind) {
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (!within_bound(got[i], expected[i], bound[i] * bound_scale)) {
        r.passed = false;
        r.mismatches = 1;
        r.message = fmt::format(
            "{}: the sum of {} {} of C is {:.9g}, expected {:.9g} (error {:.3g} > bound {:.3g}): "
            "an element of that {} is wrong",
            what, kind, i, got[i], expected[i], std::abs(got[i] - expected[i]), bound[i] * bound_scale, kind);
        return false;
      }
    }
    return true;
  };
  if (sums_ok(row_sums, ref.row_sums, ref.row_sum_bounds, "row"))
    sums_ok(col_sums, ref.col_sums, ref.col_sum_bounds, "column");
  return r;
}

}  // namespace gpulab
