// Lesson 07's GPU steps on one target (GPULAB_TEST_ON_GPU: the GPU, else the emulator): one
// training step against the CPU's, at awkward widths and batches, and whole training runs: the
// same loss curve as the CPU's, and two moons and spirals learnt to 95 %.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "07_tiny_network/device_steps.hpp"
#include "07_tiny_network/training.hpp"
#include "common/targets.hpp"
#include "emulator/observers/checker.hpp"
#include "mlp/mlp.hpp"
#include "mlp/mlp_data.hpp"
#include "mlp/mlp_train.hpp"
#include "support/lesson_runs.hpp"
#include "support/mlp_batch.hpp"
#include "support/test_target.hpp"

using namespace gpulab;
using namespace gpulab::mlp;
using gpulab::test::Batch;
using gpulab::test::random_batch;
using gpulab::test::relative_difference;

namespace {
using test::kBackend;
using Buffer = DeviceBuffer<float>;

// Every step the lesson runs on this backend, and "fused_64": the fused kernel with a block of
// 64 threads, so that its loops take several trips.
std::vector<std::string> steps() {
  std::vector<std::string> names = device_step_names(kBackend);
  names.push_back("fused_64");
  return names;
}

StepFunction step_for(const std::string& name, const Layout& net, int batch, float lr, Loss loss) {
  if (name == "fused_64") return make_step(net, batch, lr, loss, "fused", kBackend, 64);
  return make_step(net, batch, lr, loss, name, kBackend);
}

bool fits(const std::string& name, const Layout& net, int batch) {
  return device_step_fits(name == "fused_64" ? "fused" : name, net, batch);
}

}  // namespace

TEST_CASE("every step matches the CPU's", "[mlp]") {
  const std::uint64_t seed = test::test_seed();
  CAPTURE(seed);
  // Awkward widths and batches: 1, none a multiple of the 16 × 16 tiles, a batch of one.
  const Layout net = GENERATE(Layout{{2, 16, 1}}, Layout{{2, 8, 1}}, Layout{{7, 17, 33, 3}}, Layout{{1, 1}});
  const int batch = GENERATE(1, 31, 64, 200);
  const Loss loss = GENERATE(Loss::mse, Loss::bce);
  const std::string step = GENERATE(from_range(steps()));
  CAPTURE(to_string(net), batch, loss == Loss::mse ? "mse" : "bce", step);
  if (!fits(step, net, batch)) return;  // the fused kernels take tiny networks only
  const Batch b = random_batch(net, batch, seed, loss == Loss::bce);
  const std::vector<float> initial = initial_parameters(net, seed);
  std::vector<float> expected = initial, host = initial;
  const float cpu_loss = cpu_step(net, expected, b.x, b.t, batch, 0.5f, loss);
  const float got_loss = step_for(step, net, batch, 0.5f, loss)(host, b.x, b.t, batch);
  CHECK(std::abs(got_loss - cpu_loss) <= 1e-5f * std::abs(cpu_loss) + 1e-7f);
  // Compare the updates (lr · gradient), not the parameters, which barely move in one step.
  std::vector<double> update(host.size()), expected_update(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) {
    update[i] = static_cast<double>(host[i]) - initial[i];
    expected_update[i] = static_cast<double>(expected[i]) - initial[i];
  }
  CHECK(relative_difference(update, expected_update) < 1e-4);
}

namespace {

struct TrainingCase {
  std::string name;
  Dataset dataset;
  Layout net;
  TrainOptions options;
};

// The presets --train uses (training.cpp says why those epochs).
const TrainingCase kMoons{"two moons", Dataset::moons, preset_for(Dataset::moons).net,
                          preset_for(Dataset::moons).options};
const TrainingCase kSpirals{"spirals", Dataset::spirals, preset_for(Dataset::spirals).net,
                            preset_for(Dataset::spirals).options};
// One hidden layer, for the register kernel (compiled for 2 × 16 × 1).
const TrainingCase kMoonsSmall{
    "two moons, one hidden layer", Dataset::moons, Layout{{2, 16, 1}}, {300, 64, 4.0f, Loss::bce}};

std::vector<Epoch> train_on(const TrainingCase& c, const std::string& step) {
  const Data data = make_dataset(c.dataset, 512, 42);
  std::vector<float> params = initial_parameters(c.net, 7);
  if (step == "cpu") {
    return train(c.net, params, data, c.options,
                 [&](std::span<float> p, std::span<const float> x, std::span<const float> t, int batch) {
                   return cpu_step(c.net, p, x, t, batch, c.options.lr, c.options.loss);
                 });
  }
  return train(c.net, params, data, c.options, step_for(step, c.net, c.options.batch, c.options.lr, c.options.loss));
}

// The CPU's loss curve, once per case.
const std::vector<Epoch>& cpu_curve(const TrainingCase& c) {
  static std::map<std::string, std::vector<Epoch>> curves;
  std::vector<Epoch>& curve = curves[c.name];
  if (curve.empty()) curve = train_on(c, "cpu");
  return curve;
}

// Float sums in another order round differently, and training feeds each step's rounding into
// the next; over these runs the mean loss of each epoch stays within 1 % of the CPU's (measured:
// under 0.1 %), a bound that a wrong gradient, a skipped update or a missing batch exceeds by far.
constexpr double kCurveTolerance = 0.01;

void check_training(const TrainingCase& c, const std::string& step) {
  CAPTURE(c.name, step);
  const std::vector<Epoch>& expected = cpu_curve(c);
  const std::vector<Epoch> got = train_on(c, step);
  REQUIRE(got.size() == expected.size());
  double worst = 0;
  for (std::size_t e = 0; e < got.size(); ++e)
    worst = std::max(worst, std::abs(got[e].loss - expected[e].loss) / expected[e].loss);
  INFO("final loss " << got.back().loss << " (CPU " << expected.back().loss << "), accuracy " << got.back().accuracy
                     << "; largest relative difference of an epoch's loss from the CPU's " << worst);
  CHECK(worst <= kCurveTolerance);
  CHECK(got.back().accuracy >= 0.95);
}

}  // namespace

TEST_CASE("the CPU learns two moons and spirals to 95 %", "[mlp]") {
  const TrainingCase& c = GENERATE(kMoons, kSpirals, kMoonsSmall);
  CAPTURE(c.name);
  CHECK(cpu_curve(c).back().accuracy >= 0.95);
}

#if GPULAB_TEST_ON_GPU
TEST_CASE("every GPU step trains two moons and spirals with the CPU's loss curve", "[mlp]") {
  const std::string step = GENERATE(from_range(steps()));
  if (step == "fused_registers") {
    check_training(kMoonsSmall, step);
  } else {
    check_training(kMoons, step);
    check_training(kSpirals, step);
  }
}
#else
// The emulator runs a launch's threads one after another: whole runs take the fused step with a
// small block, and the register kernel, on the emulator's fast path (every variant's single step
// is checked above, in the checked mode).
TEST_CASE("the emulated fused steps train two moons and spirals with the CPU's loss curve", "[mlp]") {
  const emulated::check::UseLevel fast_path(emulated::check::Level::off);
  check_training(kMoons, "fused_64");
  check_training(kSpirals, "fused_64");
  check_training(kMoonsSmall, "fused_registers");
}
#endif

TEST_CASE("the fused step refuses a network that does not fit one block, and bad block sizes", "[mlp]") {
  UseDevice on_device(kBackend);
  const Layout net{{784, 128, 10}};
  CHECK_FALSE(mlp::fused_fits(net, 128));
  Buffer params(net.parameters(), "params"), x(784 * 128, "x"), t(10 * 128, "t"), loss(1, "loss");
  CHECK_THROWS_WITH(mlp::fused_step(net, params.span(), x.span(), t.span(), 128, 0.1f, Loss::mse, loss.span()),
                    Catch::Matchers::Contains("48 KB"));
  const Layout tiny{{2, 16, 1}};
  Buffer p(tiny.parameters(), "params");
  for (int threads : {0, 48, 1024}) {
    CAPTURE(threads);
    CHECK_THROWS_WITH(mlp::fused_step(tiny, p.span(), x.span(), t.span(), 4, 0.1f, Loss::mse, loss.span(), threads),
                      Catch::Matchers::Contains("whole warps"));
  }
}
