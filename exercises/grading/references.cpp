// The float64 references. Each bound is what one correct float kernel may be off by: u = 2⁻²⁴ is
// one rounding of a float; a sum of k terms stays within 2·k·u·Σ|terms| in any order (as lesson
// 05's and 06's checks); σ from expf within 1e-6 relative (lesson 04's).
#include "grading/references.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "06_conv/conv_check.hpp"
#include "common/random.hpp"
#include "sigmoid/sigmoid.hpp"

namespace gpulab::grading {

namespace {

constexpr double kUnit = 0x1p-24;
constexpr double kTiny = 1e-30;  // a floor for bounds at exact zeros
constexpr double kSigmoidRel = 1e-6;

using Values = std::map<std::string, Expected>;

std::int64_t size(const CaseData& d, const char* name) { return d.sizes.at(name); }
const std::vector<double>& array(const CaseData& d, const char* name) { return d.arrays.at(name); }

double sigmoid(double x) {
  if (std::isnan(x)) return x;
  return 1.0 / (1.0 + std::exp(-x));
}

// Floats uniform in [lo, hi], drawn as every input of GPU Lab is (common/random.hpp).
std::vector<double> uniform(std::size_t count, std::uint64_t seed, std::uint64_t stream, float lo, float hi) {
  std::vector<float> values(count);
  fill_uniform(values, seed, stream, lo, hi);
  return {values.begin(), values.end()};
}

Expected elementwise(std::size_t n, const std::function<void(std::size_t, double&, double&)>& f) {
  Expected e;
  e.value.resize(n);
  e.bound.resize(n);
  for (std::size_t i = 0; i < n; ++i) f(i, e.value[i], e.bound[i]);
  return e;
}

// C (rows × cols) = Σ_t A(r, t) · B(t, c), with A's and B's elements at a(r, t) and b(t, c).
Expected sum_of_products(std::int64_t rows, std::int64_t cols, std::int64_t terms,
                         const std::function<double(std::int64_t, std::int64_t)>& a,
                         const std::function<double(std::int64_t, std::int64_t)>& b) {
  Expected e;
  const auto n = static_cast<std::size_t>(rows * cols);
  e.value.assign(n, 0.0);
  e.bound.assign(n, kTiny);
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) {
      double sum = 0, magnitude = 0;
      for (std::int64_t t = 0; t < terms; ++t) {
        const double p = a(r, t) * b(t, c);
        sum += p;
        magnitude += std::abs(p);
      }
      const auto i = static_cast<std::size_t>(r * cols + c);
      e.value[i] = sum;
      e.bound[i] += 2.0 * static_cast<double>(terms) * kUnit * magnitude;
    }
  }
  return e;
}

std::vector<Reference> make_references() {
  std::vector<Reference> all;

  // c = a + b, element by element (one rounding)
  all.push_back({"vector_add", {}, [](const CaseData& d) {
                   const auto& a = array(d, "a");
                   const auto& b = array(d, "b");
                   return Values{{"c", elementwise(a.size(), [&](std::size_t i, double& v, double& bound) {
                                    v = a[i] + b[i];
                                    bound = kUnit * std::abs(v);
                                  })}};
                 }});

  // y = 2x + 1, element by element (two roundings, or one fused)
  all.push_back({"affine", {}, [](const CaseData& d) {
                   const auto& x = array(d, "x");
                   return Values{{"y", elementwise(x.size(), [&](std::size_t i, double& v, double& bound) {
                                    v = 2.0 * x[i] + 1.0;
                                    bound = 2.0 * kUnit * (2.0 * std::abs(x[i]) + 1.0);
                                  })}};
                 }});

  // C = A + B, rows × cols, row-major (one rounding)
  all.push_back({"matrix_add", {}, [](const CaseData& d) {
                   const auto& a = array(d, "a");
                   const auto& b = array(d, "b");
                   return Values{{"c", elementwise(a.size(), [&](std::size_t i, double& v, double& bound) {
                                    v = a[i] + b[i];
                                    bound = kUnit * std::abs(v);
                                  })}};
                 }});

  // y = σ(x) = 1 / (1 + e⁻ˣ), NaN for NaN (1e-6 relative: expf's error); inputs "random" or "edge".
  Reference sigmoid_ref;
  sigmoid_ref.name = "sigmoid";
  sigmoid_ref.inputs = [](const Case& c, std::uint64_t seed, CaseData& d) {
    auto& x = d.arrays["x"];
    x = uniform(static_cast<std::size_t>(c.sizes.at("n")), seed, 0, -20.0f, 20.0f);  // σ from 2e-9 to 1 − 2e-9
    if (c.inputs != "edge") return;
    // The edges spread over the array (over blocks and warps), then NaN last.
    const std::vector<float> edges = sigmoid::edge_values();
    const std::size_t step = std::max<std::size_t>(1, x.size() / (edges.size() + 1));
    for (std::size_t i = 0; i < edges.size() && i * step < x.size(); ++i) x[i * step] = edges[i];
    if (!x.empty()) x.back() = std::numeric_limits<double>::quiet_NaN();
  };
  sigmoid_ref.compute = [](const CaseData& d) {
    const auto& x = array(d, "x");
    return Values{{"y", elementwise(x.size(), [&](std::size_t i, double& v, double& bound) {
                     v = sigmoid(x[i]);
                     bound = kSigmoidRel * std::abs(v) + kTiny;
                   })}};
  };
  all.push_back(sigmoid_ref);

  // C (m × n) = A (m × k) · B (k × n), row-major (2·k·u·Σ|a·b|)
  all.push_back({"matmul", {}, [](const CaseData& d) {
                   const std::int64_t m = size(d, "m"), n = size(d, "n"), k = size(d, "k");
                   const auto& a = array(d, "a");
                   const auto& b = array(d, "b");
                   return Values{{"c", sum_of_products(
                                           m, n, k, [&](std::int64_t r, std::int64_t t) { return a[r * k + t]; },
                                           [&](std::int64_t t, std::int64_t c) { return b[t * n + c]; })}};
                 }});

  // y = x ⋆ w, NCHW, zero padding, a stride (lesson 06's float64 reference)
  all.push_back({"conv", {}, [](const CaseData& d) {
                   conv::Shape shape;
                   shape.n = static_cast<int>(size(d, "N"));
                   shape.c = static_cast<int>(size(d, "C"));
                   shape.h = static_cast<int>(size(d, "H"));
                   shape.w = static_cast<int>(size(d, "W"));
                   shape.k = static_cast<int>(size(d, "K"));
                   shape.r = static_cast<int>(size(d, "R"));
                   shape.s = static_cast<int>(size(d, "S"));
                   shape.pad = static_cast<int>(size(d, "pad"));
                   shape.stride = static_cast<int>(size(d, "stride"));
                   const std::vector<float> x(array(d, "x").begin(), array(d, "x").end());
                   const std::vector<float> w(array(d, "w").begin(), array(d, "w").end());
                   const ConvReference ref = conv_reference(x, w, {}, shape, 1);
                   const double gamma = 2.0 * shape.c * shape.r * shape.s * kUnit;
                   Expected e;
                   e.value = ref.expected;
                   e.bound.resize(ref.expected.size());
                   for (std::size_t i = 0; i < e.bound.size(); ++i) e.bound[i] = gamma * ref.magnitude[i] + kTiny;
                   return Values{{"y", e}};
                 }});

  // z = σ(z + bias[j]) in place, batch × units, row-major
  all.push_back({"bias_sigmoid", {}, [](const CaseData& d) {
                   const std::int64_t cols = size(d, "cols");
                   const auto& z = array(d, "z");
                   const auto& bias = array(d, "bias");
                   return Values{{"z", elementwise(z.size(), [&](std::size_t i, double& v, double& bound) {
                                    const double pre = z[i] + bias[i % static_cast<std::size_t>(cols)];
                                    v = sigmoid(pre);
                                    // σ's own error, and the rounding of the sum (σ' <= 1/4).
                                    bound = kSigmoidRel * std::abs(v) + 0.25 * kUnit * std::abs(pre) + kTiny;
                                  })}};
                 }});

  // dw (units × inputs) = Δᵀ · x and db = Δ's column sums, over the batch (2·batch·u·Σ|terms|)
  all.push_back({"layer_gradients", {}, [](const CaseData& d) {
                   const std::int64_t batch = size(d, "batch"), in = size(d, "inputs"), out = size(d, "units");
                   const auto& delta = array(d, "delta");
                   const auto& x = array(d, "x");
                   Expected dw = sum_of_products(
                       out, in, batch, [&](std::int64_t j, std::int64_t e) { return delta[e * out + j]; },
                       [&](std::int64_t e, std::int64_t i) { return x[e * in + i]; });
                   Expected db = sum_of_products(
                       1, out, batch, [](std::int64_t, std::int64_t) { return 1.0; },
                       [&](std::int64_t e, std::int64_t j) { return delta[e * out + j]; });
                   return Values{{"dw", dw}, {"db", db}};
                 }});

  // b (cols × rows) = aᵀ (rows × cols), row-major: exact
  all.push_back({"transpose", {}, [](const CaseData& d) {
                   const std::int64_t rows = size(d, "rows"), cols = size(d, "cols");
                   const auto& a = array(d, "a");
                   Expected e;
                   e.value.resize(a.size());
                   e.bound.assign(a.size(), 0.0);
                   for (std::int64_t r = 0; r < rows; ++r)
                     for (std::int64_t c = 0; c < cols; ++c) e.value[c * rows + r] = a[r * cols + c];
                   return Values{{"b", e}};
                 }});

  // s[0] = Σ x, exact: the inputs are whole numbers from −8 to 8, so while |Σ| < 2^24 every partial
  // sum is a whole number a float holds exactly, in any order a kernel adds them — a missed or
  // doubled element always shows, and no order is favoured.
  Reference sum_ref;
  sum_ref.name = "sum";
  sum_ref.inputs = [](const Case& c, std::uint64_t seed, CaseData& d) {
    auto& x = d.arrays["x"];
    x = uniform(static_cast<std::size_t>(c.sizes.at("n")), seed, 0, -1.0f, 1.0f);
    for (double& v : x) v = std::round(v * 8);
  };
  sum_ref.compute = [](const CaseData& d) {
    const auto& x = array(d, "x");
    Expected e;
    e.value.assign(1, 0.0);
    for (const double v : x) e.value[0] += v;
    e.bound.assign(1, 0.0);
    return Values{{"s", e}};
  };
  all.push_back(sum_ref);

  // bins[v] = how many bytes of x equal v: exact. Inputs "random" (uniform bytes) or "skewed"
  // (9 in 10 the one value 42: many threads add to one bin at once).
  Reference histogram_ref;
  histogram_ref.name = "histogram";
  histogram_ref.inputs = [](const Case& c, std::uint64_t seed, CaseData& d) {
    std::vector<unsigned char> bytes(static_cast<std::size_t>(c.sizes.at("n")));
    fill_bytes(bytes, seed, 0, c.inputs == "skewed" ? 0.9 : 0.0, 42);
    d.arrays["x"].assign(bytes.begin(), bytes.end());
  };
  histogram_ref.compute = [](const CaseData& d) {
    Expected e;
    e.value.assign(256, 0.0);
    for (const double v : array(d, "x")) e.value[static_cast<std::size_t>(v)] += 1;
    e.bound.assign(256, 0.0);
    return Values{{"bins", e}};
  };
  all.push_back(histogram_ref);

  // y[i] = x[0] + … + x[i], unsigned ints wrapping at 2^32: exact in any order
  all.push_back({"inclusive_scan", {}, [](const CaseData& d) {
                   const auto& x = array(d, "x");
                   Expected e;
                   e.value.resize(x.size());
                   e.bound.assign(x.size(), 0.0);
                   std::uint64_t sum = 0;
                   for (std::size_t i = 0; i < x.size(); ++i) {
                     sum += static_cast<std::uint64_t>(x[i]);
                     e.value[i] = static_cast<double>(static_cast<std::uint32_t>(sum));
                   }
                   return Values{{"y", e}};
                 }});

  // s[r] = Σ over the columns c of a[r][c] (2·cols·u·Σ|a|)
  all.push_back({"row_sums", {}, [](const CaseData& d) {
                   const std::int64_t rows = size(d, "rows"), cols = size(d, "cols");
                   const auto& a = array(d, "a");
                   return Values{
                       {"s", sum_of_products(
                                 rows, 1, cols, [&](std::int64_t r, std::int64_t c) { return a[r * cols + c]; },
                                 [](std::int64_t, std::int64_t) { return 1.0; })}};
                 }});

  // dy = σ(x) · (1 − σ(x)), NaN for NaN (1e-6 relative, and one rounding of 1 − σ)
  all.push_back({"sigmoid_derivative", {}, [](const CaseData& d) {
                   const auto& x = array(d, "x");
                   return Values{{"dy", elementwise(x.size(), [&](std::size_t i, double& v, double& bound) {
                                    const double s = sigmoid(x[i]);
                                    v = s * (1.0 - s);
                                    // σ's error moves σ(1 − σ) by at most its own size, and 1 − σ rounds once.
                                    bound = 3 * kSigmoidRel * std::abs(v) + 2 * kUnit * s + kTiny;
                                  })}};
                 }});

  // w = w − 0.05 · g, in place (two roundings)
  all.push_back({"sgd_update", {}, [](const CaseData& d) {
                   const auto& w = array(d, "w");
                   const auto& g = array(d, "g");
                   return Values{{"w", elementwise(w.size(), [&](std::size_t i, double& v, double& bound) {
                                    v = w[i] - static_cast<double>(0.05f) * g[i];
                                    bound = 2 * kUnit * (std::abs(w[i]) + std::abs(0.05 * g[i])) + kTiny;
                                  })}};
                 }});

  // y = the softmax of each row of x (rows × cols): e^(x − m) / Σ e^(x − m), m the row's maximum.
  // Inputs uniform in [−8, 8], or ±10⁴ for "values": "large" (e^x overflows a float without m).
  // Each output is off by its exponential's rounding (a few units) and the sum's, up to cols·u of
  // it in any order (lesson 17's bound, doubled).
  Reference softmax_ref;
  softmax_ref.name = "softmax_rows";
  softmax_ref.inputs = [](const Case& c, std::uint64_t seed, CaseData& d) {
    const float spread = c.inputs == "large" ? 1e4f : 8.0f;
    d.arrays["x"] =
        uniform(static_cast<std::size_t>(c.sizes.at("rows") * c.sizes.at("cols")), seed, 0, -spread, spread);
  };
  softmax_ref.compute = [](const CaseData& d) {
    const std::int64_t rows = size(d, "rows"), cols = size(d, "cols");
    const auto& x = array(d, "x");
    Expected e;
    e.value.resize(x.size());
    e.bound.resize(x.size());
    const double rel = 16 * kUnit + 2 * static_cast<double>(cols + 4) * kUnit;
    for (std::int64_t r = 0; r < rows; ++r) {
      const double* row = x.data() + r * cols;
      const double m = *std::max_element(row, row + cols);
      double sum = 0;
      for (std::int64_t c = 0; c < cols; ++c) sum += std::exp(row[c] - m);
      for (std::int64_t c = 0; c < cols; ++c) {
        const std::size_t i = static_cast<std::size_t>(r * cols + c);
        e.value[i] = std::exp(row[c] - m) / sum;
        e.bound[i] = rel * e.value[i] + 1e-37;
      }
    }
    return Values{{"y", e}};
  };
  all.push_back(softmax_ref);

  // o = softmax(q kᵀ / √d) v for one head (seq × d each), causal or not. Inputs uniform in
  // [−1, 1]; "large" multiplies q by 100 (scores of about ±100: e^s overflows a float without the
  // maximum subtracted). A score's float sum of d products is off by up to d·u of Σ|q k|, which
  // moves a weight by that factor (δ); each output is off by up to 2δ and the sums' own rounding
  // (seq + d terms) times Σ p|v| (lesson 19's bound, doubled).
  Reference attention_ref;
  attention_ref.name = "attention_head";
  attention_ref.inputs = [](const Case& c, std::uint64_t seed, CaseData& d) {
    const auto count = static_cast<std::size_t>(c.sizes.at("seq") * c.sizes.at("d"));
    const char* names[3] = {"q", "k", "v"};
    for (std::uint64_t t = 0; t < 3; ++t) d.arrays[names[t]] = uniform(count, seed, t + 1, -1.0f, 1.0f);
    if (c.inputs == "large") {
      for (double& x : d.arrays["q"]) x = static_cast<double>(static_cast<float>(x * 100));
    }
  };
  attention_ref.compute = [](const CaseData& data) {
    const std::int64_t seq = size(data, "seq"), d = size(data, "d");
    const bool causal = size(data, "causal") != 0;
    const auto &q = array(data, "q"), &k = array(data, "k"), &v = array(data, "v");
    const double scale = 1 / std::sqrt(static_cast<double>(d));
    Expected e;
    e.value.assign(static_cast<std::size_t>(seq * d), 0.0);
    e.bound.assign(e.value.size(), 0.0);
    std::vector<double> p(static_cast<std::size_t>(seq));
    for (std::int64_t i = 0; i < seq; ++i) {
      const std::int64_t keys = causal ? i + 1 : seq;
      double m = -std::numeric_limits<double>::infinity(), delta = 0;
      for (std::int64_t j = 0; j < keys; ++j) {
        double dot = 0, magnitude = 0;
        for (std::int64_t c = 0; c < d; ++c) {
          dot += q[i * d + c] * k[j * d + c];
          magnitude += std::abs(q[i * d + c] * k[j * d + c]);
        }
        p[j] = dot * scale;
        m = std::max(m, p[j]);
        delta = std::max(delta, static_cast<double>(d + 8) * kUnit * (1 + magnitude * scale));
      }
      double sum = 0;
      for (std::int64_t j = 0; j < keys; ++j) sum += p[j] = std::exp(p[j] - m);
      const double rounding = 2 * (2 * delta + static_cast<double>(seq + d + 8) * kUnit);
      for (std::int64_t c = 0; c < d; ++c) {
        double value = 0, weighted = 0;
        for (std::int64_t j = 0; j < keys; ++j) {
          value += p[j] / sum * v[j * d + c];
          weighted += p[j] / sum * std::abs(v[j * d + c]);
        }
        e.value[i * d + c] = value;
        e.bound[i * d + c] = rounding * weighted + kTiny;
      }
    }
    return Values{{"o", e}};
  };
  all.push_back(attention_ref);

  // c = a + b with a, b and the sum rounded to FP16 (3 roundings of 2⁻¹¹)
  all.push_back({"half_storage_add", {}, [](const CaseData& d) {
                   const auto& a = array(d, "a");
                   const auto& b = array(d, "b");
                   constexpr double kHalfUnit = 0x1p-11;
                   return Values{{"c", elementwise(a.size(), [&](std::size_t i, double& v, double& bound) {
                                    v = a[i] + b[i];
                                    bound = kHalfUnit * (std::abs(a[i]) + std::abs(b[i]) + std::abs(v)) + 1e-7;
                                  })}};
                 }});
  return all;
}

}  // namespace

const Reference* find_reference(const std::string& name) {
  static const std::vector<Reference> all = make_references();
  for (const Reference& r : all) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

CaseData make_case_data(const Spec& spec, const Reference& reference, const Case& c, std::uint64_t seed) {
  CaseData d;
  d.sizes = c.sizes;
  if (reference.inputs) reference.inputs(c, seed, d);
  std::uint64_t stream = 0;
  for (const Param& p : spec.params) {
    ++stream;  // each array its own stream of the seed
    if (!p.pointer || !p.input || d.arrays.contains(p.name)) continue;
    const auto count = static_cast<std::size_t>(evaluate(p.size, c.sizes));
    std::vector<double> values = uniform(count, seed, stream, -1.0f, 1.0f);
    if (p.element != "float" && p.element != "double") {
      for (double& x : values) x = std::min(255.0, std::floor((x + 1.0) * 128.0));  // integers 0 … 255
    }
    d.arrays[p.name] = std::move(values);
  }
  return d;
}

}  // namespace gpulab::grading
