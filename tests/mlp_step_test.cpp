// Lesson 07's GPU steps on one target (GPULAB_TEST_ON_GPU: the GPU, else the emulator): one
// training step against the CPU's, at awkward widths and batches, and whole training runs: the
// same loss curve as the CPU's, and two moons and spirals learnt to 95 %.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/targets.hpp"
#include "mlp/mlp.hpp"
#include "mlp/mlp_data.hpp"
#include "mlp/mlp_train.hpp"
#include "support/lesson_runs.hpp"
#include "support/mlp_batch.hpp"
#if GPULAB_TEST_ON_GPU
#include "mlp/mlp_library.hpp"
#endif

using namespace gpulab;
using namespace gpulab::mlp;
using gpulab::test::Batch;
using gpulab::test::random_batch;
using gpulab::test::relative_difference;

namespace {
#if GPULAB_TEST_ON_GPU
using Target = GpuTarget;
namespace device = gpulab::gpu::mlp;
// Every way the lesson runs a step on the GPU.
const std::vector<std::string> kSteps = {"layered", "fused", "fused_64",    "registers",
                                         "cublas",  "graph", "cublas_graph"};
#else
using Target = EmulatedTarget;
namespace device = gpulab::emulated::mlp;
// The emulator has no cuBLAS and no graphs.
const std::vector<std::string> kSteps = {"layered", "fused", "fused_64", "registers"};
#endif
using Buffer = Target::DeviceBuffer<float>;

// A network's buffers on the device, and one of the lesson's steps on them ("fused_64": the fused
// kernel with a block of 64 threads, so its loops take several trips; "registers": the fused
// step compiled for the network's widths).
class DeviceNet {
 public:
  DeviceNet(const Layout& net, int batch, std::string step)
      : net_(net),
        step_(std::move(step)),
        params_(net.parameters(), "params"),
        x_(static_cast<std::size_t>(batch) * net.inputs(), "x"),
        t_(static_cast<std::size_t>(batch) * net.outputs(), "t"),
        workspace_(device::step_workspace(net, batch), "workspace"),
        loss_(1, "loss") {
#if GPULAB_TEST_ON_GPU
    if (step_ == "graph" || step_ == "cublas_graph")
      graph_ = std::make_unique<device::GraphStep>(step_ == "cublas_graph" ? device::cublas_gemm : nullptr);
#endif
  }

  void set_params(std::span<const float> p) { params_.copy_from(p); }
  void get_params(std::span<float> p) const { params_.copy_to(p); }

  // One step on a full batch from the host (copied into the same device buffers each time, as a
  // captured graph needs); returns the loss.
  float step(std::span<const float> x, std::span<const float> t, int batch, float lr, Loss loss_kind) {
    x_.copy_from(x);
    t_.copy_from(t);
    const auto xs = x_.span(), ts = t_.span();
    if (step_ == "fused" || step_ == "fused_64") {
      REQUIRE(device::fused_fits(net_, batch));
      device::fused_step(net_, params_.span(), xs, ts, batch, lr, loss_kind, loss_.span(), step_ == "fused" ? 512 : 64);
    } else if (step_ == "registers") {
      REQUIRE(device::fused_registers_fits(net_));
      device::fused_registers_step(net_, params_.span(), xs, ts, batch, lr, loss_kind, loss_.span());
    } else if (step_ == "layered") {
      device::layered_step(net_, params_.span(), xs, ts, batch, lr, loss_kind, workspace_.span(), loss_.span());
#if GPULAB_TEST_ON_GPU
    } else if (step_ == "cublas") {
      device::layered_step(net_, params_.span(), xs, ts, batch, lr, loss_kind, workspace_.span(), loss_.span(),
                           {device::cublas_gemm, nullptr});
    } else if (graph_) {
      graph_->run(net_, params_.span(), xs, ts, batch, lr, loss_kind, workspace_.span(), loss_.span());
#endif
    } else {
      FAIL("no step " << step_);
    }
    float value = 0;
    loss_.copy_to(std::span<float>(&value, 1));
    return value;
  }

 private:
  Layout net_;
  std::string step_;
  Buffer params_, x_, t_, workspace_, loss_;
#if GPULAB_TEST_ON_GPU
  std::unique_ptr<device::GraphStep> graph_;
#endif
};

}  // namespace

TEST_CASE("every step matches the CPU's", "[mlp]") {
  const std::uint64_t seed = test::test_seed();
  CAPTURE(seed);
  // Awkward widths and batches: 1, none a multiple of the 16 × 16 tiles, a batch of one.
  const Layout net = GENERATE(Layout{{2, 16, 1}}, Layout{{2, 8, 1}}, Layout{{7, 17, 33, 3}}, Layout{{1, 1}});
  const int batch = GENERATE(1, 31, 64, 200);
  const Loss loss = GENERATE(Loss::mse, Loss::bce);
  const std::string step = GENERATE(from_range(kSteps));
  CAPTURE(to_string(net), batch, loss == Loss::mse ? "mse" : "bce", step);
  if (step == "registers" && !device::fused_registers_fits(net)) return;  // compiled for two widths only
  if (step.starts_with("fused") && !device::fused_fits(net, batch)) return;
  const Batch b = random_batch(net, batch, seed, loss == Loss::bce);
  const std::vector<float> initial = initial_parameters(net, seed);
  std::vector<float> expected = initial, host(initial.size(), std::nanf(""));
  const float cpu_loss = cpu_step(net, expected, b.x, b.t, batch, 0.5f, loss);

  DeviceNet d(net, batch, step);
  d.set_params(initial);
  const float got_loss = d.step(b.x, b.t, batch, 0.5f, loss);
  d.get_params(host);
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

// Fixed seeds (data 42, weights 7); the epochs leave a margin over where the CPU first reaches 95 %.
const TrainingCase kMoons{"two moons", Dataset::moons, Layout{{2, 16, 16, 1}}, {250, 64, 4.0f, Loss::bce}};
const TrainingCase kSpirals{"spirals", Dataset::spirals, Layout{{2, 32, 32, 1}}, {500, 32, 4.0f, Loss::bce}};
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
  DeviceNet d(c.net, c.options.batch, step);
  d.set_params(params);
  return train(c.net, params, data, c.options,
               [&](std::span<float> p, std::span<const float> x, std::span<const float> t, int batch) {
                 const float loss = d.step(x, t, batch, c.options.lr, c.options.loss);
                 d.get_params(p);  // train() measures the accuracy with these
                 return loss;
               });
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
  const std::string step = GENERATE(from_range(kSteps));
  if (step == "registers") {
    check_training(kMoonsSmall, step);
  } else {
    check_training(kMoons, step);
    check_training(kSpirals, step);
  }
}
#else
// The emulator runs a launch's threads one after another: whole runs take the fused step with a
// small block, and the register kernel (every variant's single step is checked above).
TEST_CASE("the emulated fused steps train two moons and spirals with the CPU's loss curve", "[mlp]") {
  check_training(kMoons, "fused_64");
  check_training(kSpirals, "fused_64");
  check_training(kMoonsSmall, "registers");
}
#endif

TEST_CASE("the fused step refuses a network that does not fit one block, and bad block sizes", "[mlp]") {
  const Layout net{{784, 128, 10}};
  CHECK_FALSE(device::fused_fits(net, 128));
  Buffer params(net.parameters(), "params"), x(784 * 128, "x"), t(10 * 128, "t"), loss(1, "loss");
  CHECK_THROWS_WITH(device::fused_step(net, params.span(), x.span(), t.span(), 128, 0.1f, Loss::mse, loss.span()),
                    Catch::Matchers::Contains("48 KB"));
  const Layout tiny{{2, 16, 1}};
  Buffer p(tiny.parameters(), "params");
  for (int threads : {0, 48, 1024}) {
    CAPTURE(threads);
    CHECK_THROWS_WITH(device::fused_step(tiny, p.span(), x.span(), t.span(), 4, 0.1f, Loss::mse, loss.span(), threads),
                      Catch::Matchers::Contains("whole warps"));
  }
}
