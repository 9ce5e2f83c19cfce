// Lesson 07's GPU kernels on one target (GPULAB_TEST_ON_GPU: the GPU, else the emulator): one
// layer-by-layer training step against the CPU's, at awkward widths and batches, and training.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "common/targets.hpp"
#include "mlp/mlp.hpp"
#include "mlp/mlp_data.hpp"
#include "mlp/mlp_train.hpp"
#include "support/lesson_runs.hpp"
#include "support/mlp_batch.hpp"

using namespace gpulab;
using namespace gpulab::mlp;
using gpulab::test::Batch;
using gpulab::test::random_batch;
using gpulab::test::relative_difference;

namespace {
#if GPULAB_TEST_ON_GPU
using Target = GpuTarget;
namespace device = gpulab::gpu::mlp;
#else
using Target = EmulatedTarget;
namespace device = gpulab::emulated::mlp;
#endif
using Buffer = Target::DeviceBuffer<float>;
}  // namespace

TEST_CASE("the layer-by-layer and fused steps match the CPU's", "[mlp]") {
  const std::uint64_t seed = test::test_seed();
  CAPTURE(seed);
  // Awkward widths and batches: 1, none a multiple of the 16 × 16 tiles, a batch of one.
  const Layout net = GENERATE(Layout{{2, 16, 1}}, Layout{{7, 17, 33, 3}}, Layout{{1, 1}});
  const int batch = GENERATE(1, 31, 64);
  const Loss loss = GENERATE(Loss::mse, Loss::bce);
  const bool fused = GENERATE(false, true);
  CAPTURE(to_string(net), batch, loss == Loss::mse ? "mse" : "bce", fused);
  const Batch b = random_batch(net, batch, seed, loss == Loss::bce);
  const std::vector<float> initial = initial_parameters(net, seed);
  std::vector<float> expected = initial, host = initial;
  const float cpu_loss = cpu_step(net, expected, b.x, b.t, batch, 0.5f, loss);

  Buffer params(host.size(), "params"), x(b.x.size(), "x"), t(b.t.size(), "t"),
      workspace(device::step_workspace(net, batch), "workspace"), device_loss(1, "loss");
  params.copy_from(host);
  x.copy_from(b.x);
  t.copy_from(b.t);
  if (fused) {
    REQUIRE(device::fused_fits(net, batch));
    device::fused_step(net, params.span(), x.span(), t.span(), batch, 0.5f, loss, device_loss.span());
  } else {
    device::layered_step(net, params.span(), x.span(), t.span(), batch, 0.5f, loss, workspace.span(),
                         device_loss.span());
  }
  params.copy_to(host);
  float got_loss = 0;
  device_loss.copy_to(std::span<float>(&got_loss, 1));
  CHECK(std::abs(got_loss - cpu_loss) <= 1e-5f * std::abs(cpu_loss) + 1e-7f);
  // Compare the updates (lr · gradient), not the parameters, which barely move in one step.
  std::vector<double> update(host.size()), expected_update(host.size());
  for (std::size_t i = 0; i < host.size(); ++i) {
    update[i] = static_cast<double>(host[i]) - initial[i];
    expected_update[i] = static_cast<double>(expected[i]) - initial[i];
  }
  CHECK(relative_difference(update, expected_update) < 1e-4);
}

TEST_CASE("the layer-by-layer and fused steps train two moons to 95 %", "[mlp]") {
  const bool fused = GENERATE(false, true);
  CAPTURE(fused);
  const Layout net{{2, 16, 16, 1}};
  const Data data = make_dataset(Dataset::moons, 512, 42);
  std::vector<float> host = initial_parameters(net, 7);
  const TrainOptions options{500, 64, 2.0f, Loss::bce};
  Buffer params(host.size(), "params"), x(data.x.size(), "x"), t(data.y.size(), "t"),
      workspace(device::step_workspace(net, options.batch), "workspace"), loss(1, "loss");
  params.copy_from(host);
  x.copy_from(data.x);
  t.copy_from(data.y);
  // The loop of train(), with the batch's position in the device copies of x and t.
  const auto epochs = train(
      net, host, data, options, [&](std::span<float>, std::span<const float> xb, std::span<const float> tb, int batch) {
        const std::size_t first = static_cast<std::size_t>(xb.data() - data.x.data()) / 2;
        const auto xs = x.span().subspan(first * 2, xb.size());
        const auto ts = t.span().subspan(first, tb.size());
        if (fused) {
          device::fused_step(net, params.span(), xs, ts, batch, options.lr, options.loss, loss.span());
        } else {
          device::layered_step(net, params.span(), xs, ts, batch, options.lr, options.loss, workspace.span(),
                               loss.span());
        }
        float value = 0;
        loss.copy_to(std::span<float>(&value, 1));
        params.copy_to(host);  // train() measures the accuracy with these
        return value;
      });
  INFO("loss " << epochs.back().loss << ", accuracy " << epochs.back().accuracy);
  CHECK(epochs.back().accuracy >= 0.95);
}

TEST_CASE("the fused step refuses a network that does not fit one block", "[mlp]") {
  const Layout net{{784, 128, 10}};
  CHECK_FALSE(device::fused_fits(net, 128));
  Buffer params(net.parameters(), "params"), x(784 * 128, "x"), t(10 * 128, "t"), loss(1, "loss");
  CHECK_THROWS_WITH(device::fused_step(net, params.span(), x.span(), t.span(), 128, 0.1f, Loss::mse, loss.span()),
                    Catch::Matchers::Contains("48 KB"));
}
