// The grader's references: each exercise's name (its exercise.json's "reference") tied to its
// problem's float64 reference and bound in lessons/problems/ — the ones the lessons check their
// own kernels against — with the inputs the exercise draws and the names of its arrays.
#include "grading/references.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "common/random.hpp"
#include "problems/attention/attention_reference.hpp"
#include "problems/conv/conv_check.hpp"
#include "problems/elementwise/elementwise_reference.hpp"
#include "problems/histogram/histogram_reference.hpp"
#include "problems/matmul/matmul_check.hpp"
#include "problems/mlp_step/sgd_reference.hpp"
#include "problems/reduction/sum_reference.hpp"
#include "problems/scan/scan_reference.hpp"
#include "problems/sigmoid/sigmoid_reference.hpp"
#include "problems/softmax/softmax_reference.hpp"
#include "problems/transpose/transpose_reference.hpp"
#include "sigmoid/sigmoid.hpp"

namespace gpulab::grading {

namespace {

using Values = std::map<std::string, Expected>;
namespace sp = sigmoid_problem;

std::int64_t size(const CaseData& d, const char* name) { return d.sizes.at(name); }
const std::vector<double>& array(const CaseData& d, const char* name) { return d.arrays.at(name); }
std::vector<float> floats(const std::vector<double>& x) { return {x.begin(), x.end()}; }

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

// c = a + b (vector_add, matrix_add: lessons 01's and 03's bound)
Values added(const CaseData& d) {
  const auto& a = array(d, "a");
  const auto& b = array(d, "b");
  std::vector<double> c(a.size());
  for (std::size_t i = 0; i < c.size(); ++i) c[i] = elementwise::add(a[i], b[i]);
  return Values{{"c", within(std::move(c), elementwise::kAddTolerance)}};
}

// A (rows × cols) as floats laid out transposed: the product's A for Δᵀ·x.
std::vector<float> transposed(const std::vector<double>& a, std::int64_t rows, std::int64_t cols) {
  std::vector<float> t(a.size());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) t[c * rows + r] = static_cast<float>(a[r * cols + c]);
  return t;
}

std::vector<Reference> make_references() {
  std::vector<Reference> all;
  all.push_back({"vector_add", {}, added});
  all.push_back({"matrix_add", {}, added});

  all.push_back({"affine", {}, [](const CaseData& d) {
                   const auto& x = array(d, "x");
                   return Values{{"y", elementwise(x.size(), [&](std::size_t i, double& v, double& bound) {
                                    v = elementwise::affine(x[i]);
                                    bound = elementwise::affine_bound(x[i]);
                                  })}};
                 }});

  // Inputs "random" (σ from 2e-9 to 1 − 2e-9) or "edge": lesson 04's edges spread over the array
  // (over blocks and warps), then NaN last.
  Reference sigmoid_ref;
  sigmoid_ref.name = "sigmoid";
  sigmoid_ref.inputs = [](const Case& c, std::uint64_t seed, CaseData& d) {
    auto& x = d.arrays["x"];
    x = uniform(static_cast<std::size_t>(c.sizes.at("n")), seed, 0, -20.0f, 20.0f);
    if (c.inputs != "edge") return;
    const std::vector<float> edges = sigmoid::edge_values();
    const std::size_t step = std::max<std::size_t>(1, x.size() / (edges.size() + 1));
    for (std::size_t i = 0; i < edges.size() && i * step < x.size(); ++i) x[i * step] = edges[i];
    if (!x.empty()) x.back() = std::numeric_limits<double>::quiet_NaN();
  };
  sigmoid_ref.compute = [](const CaseData& d) {
    const auto& x = array(d, "x");
    std::vector<double> y(x.size());
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = sp::sigmoid(x[i]);
    return Values{{"y", within(std::move(y), sp::kTolerance)}};
  };
  all.push_back(sigmoid_ref);

  all.push_back({"sigmoid_derivative", {}, [](const CaseData& d) {
                   const auto& x = array(d, "x");
                   return Values{{"dy", elementwise(x.size(), [&](std::size_t i, double& v, double& bound) {
                                    v = sp::derivative(x[i]);
                                    bound = sp::derivative_bound(x[i]);
                                  })}};
                 }});

  // z = σ(z + bias[j]) in place, batch × units, row-major
  all.push_back({"bias_sigmoid", {}, [](const CaseData& d) {
                   const auto cols = static_cast<std::size_t>(size(d, "cols"));
                   const auto& z = array(d, "z");
                   const auto& bias = array(d, "bias");
                   return Values{{"z", elementwise(z.size(), [&](std::size_t i, double& v, double& bound) {
                                    const double pre = z[i] + bias[i % cols];
                                    v = sp::sigmoid(pre);
                                    bound = sp::biased_bound(pre);
                                  })}};
                 }});

  // C (m × n) = A (m × k) · B (k × n), row-major: lesson 05's reference and bound
  all.push_back({"matmul", {}, [](const CaseData& d) {
                   const auto m = static_cast<int>(size(d, "m")), n = static_cast<int>(size(d, "n")),
                              k = static_cast<int>(size(d, "k"));
                   return Values{{"c", product_expected(floats(array(d, "a")), floats(array(d, "b")), m, n, k)}};
                 }});

  // s[r] = Σ over the columns of a[r][·]: the product A · 1
  all.push_back({"row_sums", {}, [](const CaseData& d) {
                   const auto rows = static_cast<int>(size(d, "rows")), cols = static_cast<int>(size(d, "cols"));
                   const std::vector<float> ones(static_cast<std::size_t>(cols), 1.0f);
                   return Values{{"s", product_expected(floats(array(d, "a")), ones, rows, 1, cols)}};
                 }});

  // dw (units × inputs) = Δᵀ · x and db = 1ᵀ · Δ, over the batch: two products
  all.push_back({"layer_gradients", {}, [](const CaseData& d) {
                   const auto batch = static_cast<int>(size(d, "batch")), in = static_cast<int>(size(d, "inputs")),
                              out = static_cast<int>(size(d, "units"));
                   const auto& delta = array(d, "delta");
                   const std::vector<float> ones(static_cast<std::size_t>(batch), 1.0f);
                   return Values{
                       {"dw", product_expected(transposed(delta, batch, out), floats(array(d, "x")), out, in, batch)},
                       {"db", product_expected(ones, floats(delta), 1, out, batch)}};
                 }});

  // w = w − 0.05 · g, in place
  all.push_back({"sgd_update", {}, [](const CaseData& d) {
                   const auto& w = array(d, "w");
                   const auto& g = array(d, "g");
                   const auto rate = static_cast<double>(mlp_step::kExerciseRate);
                   return Values{{"w", elementwise(w.size(), [&](std::size_t i, double& v, double& bound) {
                                    v = mlp_step::sgd_update(w[i], g[i], rate);
                                    bound = mlp_step::sgd_update_bound(w[i], g[i], rate);
                                  })}};
                 }});

  // y = x ⋆ w, NCHW, zero padding, a stride: lesson 06's reference and direct bound
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
                   return Values{{"y", direct_expected(conv_reference(floats(array(d, "x")), floats(array(d, "w")), {},
                                                                      shape, 1))}};
                 }});

  // b (cols × rows) = aᵀ: exact
  all.push_back({"transpose", {}, [](const CaseData& d) {
                   const auto rows = static_cast<std::size_t>(size(d, "rows")),
                              cols = static_cast<std::size_t>(size(d, "cols"));
                   const auto& a = array(d, "a");
                   Expected e;
                   e.value.resize(a.size());
                   e.bound.assign(a.size(), 0.0);
                   for (std::size_t i = 0; i < a.size(); ++i)
                     e.value[i] = a[transpose_problem::source_of(i, rows, cols)];
                   return Values{{"b", e}};
                 }});

  // s[0] = Σ x over whole numbers: exact in any order
  Reference sum_ref;
  sum_ref.name = "sum";
  sum_ref.inputs = [](const Case& c, std::uint64_t seed, CaseData& d) {
    auto& x = d.arrays["x"];
    x = uniform(static_cast<std::size_t>(c.sizes.at("n")), seed, 0, -1.0f, 1.0f);
    for (double& v : x) v = reduction_problem::whole_number(v);
  };
  sum_ref.compute = [](const CaseData& d) {
    return Values{{"s", Expected{{reduction_problem::sum(std::span<const double>(array(d, "x")))}, {0.0}}}};
  };
  all.push_back(sum_ref);

  // bins[v]: exact. Inputs "random" (uniform bytes) or "skewed" (9 in 10 one value).
  Reference histogram_ref;
  histogram_ref.name = "histogram";
  histogram_ref.inputs = [](const Case& c, std::uint64_t seed, CaseData& d) {
    std::vector<unsigned char> bytes(static_cast<std::size_t>(c.sizes.at("n")));
    fill_bytes(bytes, seed, 0, c.inputs == "skewed" ? 0.9 : 0.0, histogram_problem::kCommonValue);
    d.arrays["x"].assign(bytes.begin(), bytes.end());
  };
  histogram_ref.compute = [](const CaseData& d) {
    Expected e;
    e.value.resize(256);
    e.bound.assign(256, 0.0);
    histogram_problem::count(std::span<const double>(array(d, "x")), std::span<double>(e.value));
    return Values{{"bins", e}};
  };
  all.push_back(histogram_ref);

  // y[i] = x[0] + … + x[i], wrapping at 2^32: exact
  all.push_back({"inclusive_scan", {}, [](const CaseData& d) {
                   const std::vector<unsigned int> y =
                       scan_problem::scan(std::span<const double>(array(d, "x")), false);
                   return Values{{"y", Expected{{y.begin(), y.end()}, std::vector<double>(y.size(), 0.0)}}};
                 }});

  // Each row's softmax: inputs uniform in [−8, 8], or ±10⁴ for "large" (e^x overflows a float
  // without the maximum subtracted). Lesson 17's reference and bound.
  Reference softmax_ref;
  softmax_ref.name = "softmax_rows";
  softmax_ref.inputs = [](const Case& c, std::uint64_t seed, CaseData& d) {
    const float spread = c.inputs == "large" ? 1e4f : 8.0f;
    d.arrays["x"] =
        uniform(static_cast<std::size_t>(c.sizes.at("rows") * c.sizes.at("cols")), seed, 0, -spread, spread);
  };
  softmax_ref.compute = [](const CaseData& d) {
    const auto rows = static_cast<std::size_t>(size(d, "rows")), cols = static_cast<std::size_t>(size(d, "cols"));
    std::vector<double> y(rows * cols);
    softmax_problem::softmax_rows(std::span<const double>(array(d, "x")), rows, cols, std::span<double>(y));
    return Values{{"y", within(std::move(y), softmax_problem::tolerance(cols))}};
  };
  all.push_back(softmax_ref);

  // One head's attention: inputs uniform in [−1, 1]; "large" multiplies q by 100 (scores of about
  // ±100: e^s overflows a float without the maximum subtracted).
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
    const auto seq = static_cast<std::size_t>(size(data, "seq")), d = static_cast<std::size_t>(size(data, "d"));
    return Values{{"o", attention_problem::one_head(array(data, "q").data(), array(data, "k").data(),
                                                    array(data, "v").data(), seq, d, size(data, "causal") != 0)}};
  };
  all.push_back(attention_ref);

  // c = a + b with a, b and the sum rounded to FP16
  all.push_back({"half_storage_add", {}, [](const CaseData& d) {
                   const auto& a = array(d, "a");
                   const auto& b = array(d, "b");
                   return Values{{"c", elementwise(a.size(), [&](std::size_t i, double& v, double& bound) {
                                    v = elementwise::add(a[i], b[i]);
                                    bound = elementwise::half_add_bound(a[i], b[i]);
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
