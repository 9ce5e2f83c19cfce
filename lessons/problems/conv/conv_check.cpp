#include "problems/conv/conv_check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "common/random.hpp"

namespace gpulab {

namespace {

// One output row (n, k, p) in float64: its values and Σ|x·w| per element.
void reference_row(std::span<const float> x, std::span<const float> w, const conv::Shape& sh, int n, int k, int p,
                   double* out, double* magnitude) {
  const int Q = sh.q();
  std::fill(out, out + Q, 0.0);
  std::fill(magnitude, magnitude + Q, 0.0);
  for (int c = 0; c < sh.c; ++c) {
    for (int r = 0; r < sh.r; ++r) {
      const int h = p * sh.stride - sh.pad + r;
      if (h < 0 || h >= sh.h) continue;
      const float* in = x.data() + ((static_cast<std::size_t>(n) * sh.c + c) * sh.h + h) * sh.w;
      const float* taps = w.data() + ((static_cast<std::size_t>(k) * sh.c + c) * sh.r + r) * sh.s;
      for (int s = 0; s < sh.s; ++s) {
        const double weight = taps[s];
        for (int q = 0; q < Q; ++q) {
          const int col = q * sh.stride - sh.pad + s;
          if (col < 0 || col >= sh.w) continue;
          const double term = weight * in[col];
          out[q] += term;
          magnitude[q] += std::abs(term);
        }
      }
    }
  }
}

// Output element i as (n, k, p, q).
struct Position {
  std::size_t n, k, p, q;
};
Position position(std::size_t i, const conv::Shape& sh) {
  const std::size_t P = sh.p(), Q = sh.q(), K = sh.k;
  return {i / (Q * P * K), i / (Q * P) % K, i / Q % P, i % Q};
}

double bound_of(const ConvReference& ref, ConvArithmetic arithmetic, std::size_t element, std::size_t checked) {
  const conv::Shape& sh = ref.shape;
  const double terms = static_cast<double>(sh.c) * sh.r * sh.s;
  const double magnitude = ref.magnitude[checked];
  switch (arithmetic) {
    case ConvArithmetic::direct:
      return 2 * terms * kFloatUnit * magnitude;
    case ConvArithmetic::winograd: {
      // The transforms add and subtract the inputs of a whole tile (cuDNN's are up to 6 × 6
      // outputs) before the products, so an output's rounding follows its tile's inputs, not its
      // own window's: an output whose window is all padding is not exactly 0 when a neighbour in
      // its tile is not. (cuDNN, choosing by timing while other processes shared the H100, gave
      // -2.4e-7 there at 1x2x9x7 → 4, 3x3, pad 4, where the bound was 0; of its algorithms only the
      // Winograd ones can: the direct and GEMM ones add exact zeros, the FFT ones have their bound.)
      const Position at = position(element, sh);
      const double tile = std::max(magnitude, ref.image_max[at.n] * ref.filter_abs_sum[at.k]);
      return 4 * (2 * terms + 16) * kFloatUnit * tile;
    }
    case ConvArithmetic::winograd_4x4:  // the transforms magnify 36 times as much (conv_check.hpp)
      return 36 * bound_of(ref, ConvArithmetic::winograd, element, checked);
    case ConvArithmetic::fft: {
      const Position at = position(element, sh);
      const double lh = sh.h + 2 * sh.pad, lw = sh.w + 2 * sh.pad;  // at least the transform's size
      const double log_l = std::log2(std::max(4.0, 4 * lh * lw));   // the sizes cuFFT picks are < 2·(H + 2·pad)
      return 8 * (log_l + sh.c) * kFloatUnit * ref.image_norm[at.n] * ref.filter_norm[at.k];
    }
  }
  return 0;
}

}  // namespace

ConvReference conv_reference(std::span<const float> x, std::span<const float> w, std::span<const float> bias,
                             const conv::Shape& sh, std::uint64_t seed) {
  ConvReference ref;
  ref.shape = sh;
  ref.bias.assign(bias.begin(), bias.end());
  const std::size_t Q = sh.q();
  const std::size_t rows = sh.output_size() / std::max<std::size_t>(Q, 1);
  ref.sampled = sh.macs() > kFullCheckMacs;
  if (!ref.sampled) {
    ref.expected.resize(sh.output_size());
    ref.magnitude.resize(sh.output_size());
    const auto count = static_cast<std::ptrdiff_t>(rows);
#pragma omp parallel for schedule(dynamic, 16)
    for (std::ptrdiff_t row = 0; row < count; ++row) {
      const Position at = position(static_cast<std::size_t>(row) * Q, sh);
      reference_row(x, w, sh, static_cast<int>(at.n), static_cast<int>(at.k), static_cast<int>(at.p),
                    ref.expected.data() + row * static_cast<std::ptrdiff_t>(Q),
                    ref.magnitude.data() + row * static_cast<std::ptrdiff_t>(Q));
    }
  } else {
    // 64 whole rows, then 2048 single elements (computed as part of their rows: simpler, and cheap).
    std::vector<std::int64_t> chosen_rows = sample_indices(static_cast<std::int64_t>(rows), 64, seed ^ 0x726f7773);
    for (std::int64_t e : sample_indices(static_cast<std::int64_t>(sh.output_size()), 2048, seed ^ 0x656c73)) {
      chosen_rows.push_back(e / static_cast<std::int64_t>(Q));
    }
    std::sort(chosen_rows.begin(), chosen_rows.end());
    chosen_rows.erase(std::unique(chosen_rows.begin(), chosen_rows.end()), chosen_rows.end());
    ref.index.resize(chosen_rows.size() * Q);
    ref.expected.resize(ref.index.size());
    ref.magnitude.resize(ref.index.size());
    const auto count = static_cast<std::ptrdiff_t>(chosen_rows.size());
#pragma omp parallel for schedule(dynamic, 1)
    for (std::ptrdiff_t i = 0; i < count; ++i) {
      const std::size_t first = static_cast<std::size_t>(chosen_rows[static_cast<std::size_t>(i)]) * Q;
      const Position at = position(first, sh);
      const std::size_t slot = static_cast<std::size_t>(i) * Q;
      reference_row(x, w, sh, static_cast<int>(at.n), static_cast<int>(at.k), static_cast<int>(at.p),
                    ref.expected.data() + slot, ref.magnitude.data() + slot);
      for (std::size_t q = 0; q < Q; ++q) ref.index[slot + q] = first + q;
    }
  }
  const std::size_t image = static_cast<std::size_t>(sh.c) * sh.h * sh.w,
                    filter = static_cast<std::size_t>(sh.c) * sh.r * sh.s;
  auto norms = [](std::span<const float> v, std::size_t count, std::size_t each) {
    std::vector<double> out(count, 0.0);
    for (std::size_t i = 0; i < count; ++i) {
      for (std::size_t j = 0; j < each; ++j) out[i] += static_cast<double>(v[i * each + j]) * v[i * each + j];
      out[i] = std::sqrt(out[i]);
    }
    return out;
  };
  ref.image_norm = norms(x, static_cast<std::size_t>(sh.n), image);
  ref.filter_norm = norms(w, static_cast<std::size_t>(sh.k), filter);
  for (std::size_t n = 0; n < static_cast<std::size_t>(sh.n); ++n) {
    double largest = 0;
    for (std::size_t j = 0; j < image; ++j)
      largest = std::max(largest, std::abs(static_cast<double>(x[n * image + j])));
    ref.image_max.push_back(largest);
  }
  for (std::size_t k = 0; k < static_cast<std::size_t>(sh.k); ++k) {
    double sum = 0;
    for (std::size_t j = 0; j < filter; ++j) sum += std::abs(static_cast<double>(w[k * filter + j]));
    ref.filter_abs_sum.push_back(sum);
  }
  return ref;
}

Expected direct_expected(const ConvReference& ref) {
  if (ref.sampled) throw std::invalid_argument("direct_expected: a sampled reference holds only some elements");
  Expected e;
  e.value = ref.expected;
  e.bound.resize(ref.expected.size());
  for (std::size_t i = 0; i < e.bound.size(); ++i)
    e.bound[i] = bound_of(ref, ConvArithmetic::direct, i, i) + kTinyBound;
  return e;
}

CheckResult check_conv(std::span<const float> y, const ConvReference& ref, ConvArithmetic arithmetic, bool bias_relu,
                       const std::string& what) {
  const conv::Shape& sh = ref.shape;
  CheckResult r;
  r.checked = ref.expected.size();
  if (y.size() != sh.output_size()) {
    r.passed = false;
    r.rel_error = std::numeric_limits<double>::infinity();
    r.message = fmt::format("{}: y has {} elements, expected {}", what, y.size(), sh.output_size());
    return r;
  }
  auto element_of = [&](std::size_t checked) { return ref.sampled ? ref.index[checked] : checked; };
  auto expected_of = [&](std::size_t checked, std::size_t element) {
    const double v = ref.expected[checked];
    return bias_relu ? std::max(0.0, v + ref.bias[position(element, sh).k]) : v;
  };
  auto bound_at = [&](std::size_t checked, std::size_t element) {
    const double b = bound_of(ref, arithmetic, element, checked);
    return bias_relu ? b + kFloatUnit * std::abs(expected_of(checked, element)) : b;
  };
  double diff2 = 0, ref2 = 0;
  std::size_t bad = 0;
  const auto count = static_cast<std::ptrdiff_t>(ref.expected.size());
#pragma omp parallel for reduction(+ : diff2, ref2, bad) schedule(static)
  for (std::ptrdiff_t i = 0; i < count; ++i) {
    const auto checked = static_cast<std::size_t>(i);
    const std::size_t element = element_of(checked);
    const double got = y[element], expected = expected_of(checked, element);
    if (!within_bound(got, expected, bound_at(checked, element))) ++bad;
    diff2 += std::isfinite(got) ? (got - expected) * (got - expected) : std::numeric_limits<double>::infinity();
    ref2 += expected * expected;
  }
  r.rel_error = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  r.mismatches = bad;
  auto describe = [&](std::size_t element) {
    const Position at = position(element, sh);
    return fmt::format("(n {}, k {}, p {}, q {})", at.n, at.k, at.p, at.q);
  };
  if (bad > 0) {
    for (std::size_t checked = 0; checked < ref.expected.size(); ++checked) {
      const std::size_t element = element_of(checked);
      const double got = y[element], expected = expected_of(checked, element), bound = bound_at(checked, element);
      if (within_bound(got, expected, bound)) continue;
      r.passed = false;
      r.first.push_back({element, expected, got});
      r.message = fmt::format("{}: {} of {} {}elements differ; first at {}: expected {:.9g}, got {:.9g} ({})", what,
                              bad, r.checked, ref.sampled ? "checked " : "", describe(element), expected, got,
                              bound_detail(got, expected, bound));
      break;
    }
    return r;
  }
  if (!ref.sampled) return r;
  for (std::size_t e = 0; e < y.size(); ++e) {
    if (is_poison(y[e]) || std::isnan(y[e])) {
      r.passed = false;
      r.mismatches = 1;
      r.first.push_back({e, std::numeric_limits<double>::quiet_NaN(), y[e]});
      r.message = fmt::format("{}: element {} is {}", what, describe(e),
                              is_poison(y[e]) ? "never written: does every output element have a thread?" : "NaN");
      return r;
    }
  }
  return r;
}

}  // namespace gpulab
