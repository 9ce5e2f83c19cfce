#pragma once
// One training step of lesson 07's network as a lesson's problem: its layout and batch, random
// inputs and targets, the float64 step to compare with, and the check. Lesson 07 times the step on
// one device; lesson 10 spreads the same step over several GPUs and checks it the same way.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/lesson.hpp"
#include "mlp/mlp.hpp"

namespace gpulab::mlp {

inline constexpr float kLearningRate = 0.5f;
inline constexpr Loss kLoss = Loss::mse;  // the loss the reference numbers of PyTorch use

struct StepInstance : Instance {
  Layout net;
  int batch = 0;
  std::vector<float> x, t, initial;
  std::vector<double> expected_update;  // lr · gradient in float64
  double expected_loss = 0;
  // How much float rounding the step's cancellations magnify (see check_step): the largest
  // 1 / min(a, 1 − a) over the activations and |y| / |y − t| over the outputs, and
  // Σ|y − t|·|y| / Σ(y − t)² for the loss.
  double amplification = 1, loss_amplification = 1;
};

// The problem's dims: in, hidden, out and batch (the batch falls back to n).
Layout layout_of(const Problem& p);
int batch_of(const Problem& p);

// x uniform in [-1, 1], t in [0, 1], Glorot parameters, all from the seed; and the float64 step.
std::unique_ptr<StepInstance> make_step_instance(const Layout& net, int batch, std::uint64_t seed);

// The parameters after a step against the float64 step. The gradients are float sums of `batch`
// terms, and two cancellations magnify rounding: the sigmoid's derivative a (1 − a), whose
// 1 − a loses relative precision as a nears 1, and the error y − t as y nears t. So the updates
// (small next to the parameters) must agree in the 2-norm to a relative
//   10⁻⁴ + 2·batch·2⁻²⁴ + 32·2⁻²⁴·amplification,
// and the loss, a float sum of batch × outputs positive terms, to
//   (2·batch·outputs + 4·(inputs + hidden))·2⁻²⁴ + 8·2⁻²⁴·loss_amplification
// (first-order bounds; the amplifications are measured on the float64 forward pass).
CheckResult check_step(std::span<const float> params, float loss, const StepInstance& in, const std::string& what);

}  // namespace gpulab::mlp
