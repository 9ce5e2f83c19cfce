#include "problems/mlp_step/step_check.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "common/random.hpp"
#include "mlp/mlp_cpu.hpp"

namespace gpulab::mlp {

Layout layout_of(const Problem& p) {
  std::map<std::string, int> d;
  for (const auto& [key, value] : p.dims) d[key] = static_cast<int>(value);
  return Layout{{d["in"], d["hidden"], d["out"]}};
}
int batch_of(const Problem& p) { return static_cast<int>(p.dim("batch", p.n)); }

CheckResult check_step(std::span<const float> params, float loss, const StepInstance& in, const std::string& what) {
  CheckResult r;
  r.checked = params.size() + 1;
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (is_poison(params[i]) || !std::isfinite(params[i])) {
      r.passed = false;
      r.mismatches = 1;
      r.rel_error = std::numeric_limits<double>::infinity();
      r.message =
          fmt::format("{}: parameter {} is {}", what, i,
                      is_poison(params[i]) ? "never written back: is every parameter copied out?" : "not finite");
      return r;
    }
    const double update = static_cast<double>(params[i]) - in.initial[i];
    diff += (update - in.expected_update[i]) * (update - in.expected_update[i]);
    norm += in.expected_update[i] * in.expected_update[i];
  }
  r.rel_error = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
  const double loss_error = std::abs(loss - in.expected_loss) / std::max(std::abs(in.expected_loss), 1e-30);
  constexpr double unit = 0x1.0p-24;
  const double update_bound = 1e-4 + 2.0 * in.batch * unit + 32 * unit * in.amplification;
  const double loss_bound = (2.0 * in.batch * in.net.outputs() + 4.0 * (in.net.inputs() + in.net.sizes[1])) * unit +
                            8 * unit * in.loss_amplification;
  if (r.rel_error > update_bound) {
    r.passed = false;
    r.mismatches = 1;
    // Which half of the step to suspect: a wrong loss means the forward pass already went wrong.
    const std::string where = loss_error > loss_bound
                                  ? fmt::format(
                                        "the loss is wrong too ({:.9g}, expected {:.9g}): look at the forward pass "
                                        "first",
                                        loss, in.expected_loss)
                                  : "the loss is right, so the forward pass is: look at the backward pass";
    r.message = fmt::format("{}: the parameters' update differs from float64's by {:.3g} (relative, bound {:.3g}); {}",
                            what, r.rel_error, update_bound, where);
  } else if (loss_error > loss_bound) {
    r.passed = false;
    r.mismatches = 1;
    r.message = fmt::format("{}: loss {:.9g}, expected {:.9g} (relative error {:.3g} > {:.3g})", what, loss,
                            in.expected_loss, loss_error, loss_bound);
  }
  return r;
}

std::unique_ptr<StepInstance> make_step_instance(const Layout& net, int batch, std::uint64_t seed) {
  auto in = std::make_unique<StepInstance>();
  in->net = net;
  check_layout(in->net);
  in->batch = batch;
  in->x.resize(static_cast<std::size_t>(in->batch) * in->net.inputs());
  in->t.resize(static_cast<std::size_t>(in->batch) * in->net.outputs());
  fill_uniform(in->x, seed, 0, -1.0f, 1.0f);
  fill_uniform(in->t, seed, 1, 0.0f, 1.0f);
  in->initial = initial_parameters(in->net, seed);
  const std::vector<double> p64(in->initial.begin(), in->initial.end());
  std::vector<double> grads(p64.size());
  in->expected_loss = gradients<double, double>(in->net, p64, in->x, in->t, in->batch, kLoss, grads);
  Activations<double> a;
  forward<double, double>(in->net, p64, in->x, in->batch, a);
  for (std::size_t l = 1; l < a.size(); ++l) {
    for (double v : a[l]) in->amplification = std::max(in->amplification, 1 / std::max(std::min(v, 1 - v), 1e-300));
  }
  double spread = 0, squares = 0;
  for (std::size_t i = 0; i < a.back().size(); ++i) {
    const double y = a.back()[i], gap = std::abs(y - in->t[i]);
    in->amplification = std::max(in->amplification, std::abs(y) / std::max(gap, 1e-300));
    spread += gap * std::abs(y);
    squares += gap * gap;
  }
  in->loss_amplification = squares > 0 ? spread / squares : 1;
  in->expected_update.resize(grads.size());
  for (std::size_t i = 0; i < grads.size(); ++i)
    in->expected_update[i] = -static_cast<double>(kLearningRate) * grads[i];
  return in;
}

}  // namespace gpulab::mlp
