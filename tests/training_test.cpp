// Lesson 07's training runs as the app's Visualize view drives them: a run on its own thread,
// snapshots as it goes, the decision boundary, and failures reported instead of thrown.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "07_tiny_network/training.hpp"

using namespace gpulab;
using namespace gpulab::mlp;

namespace {

LiveTraining::Snapshot wait_for_end(const LiveTraining& run) {
  for (int i = 0; i < 6000; ++i) {
    const LiveTraining::Snapshot s = run.snapshot();
    if (s.finished) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL("the training run did not finish within a minute");
  return {};
}

}  // namespace

TEST_CASE("a live run trains epoch by epoch and leaves the boundary of what it learnt", "[training]") {
  TrainingSetup setup;
  setup.dataset = Dataset::moons;
  setup.net = Layout{{2, 16, 1}};
  setup.options = {200, 64, 4.0f, Loss::bce};
  setup.grid = 32;
  LiveTraining run(setup);
  const LiveTraining::Snapshot s = wait_for_end(run);
  CHECK(s.error.empty());
  REQUIRE(s.curve.size() == 200);
  CHECK(s.curve.front().epoch == 1);
  CHECK(s.curve.back().epoch == 200);
  CHECK(s.curve.back().loss < s.curve.front().loss);
  CHECK(s.curve.back().accuracy >= 0.95);
  REQUIRE(s.boundary.outputs.size() == 32u * 32u);
  // The boundary classifies the data as the network does: most points fall on their label's side.
  const Data& data = run.data();
  int right = 0;
  for (int i = 0; i < data.count; ++i) {
    const float x = data.x[2 * static_cast<std::size_t>(i)], y = data.x[2 * static_cast<std::size_t>(i) + 1];
    const int c = static_cast<int>((x - s.boundary.lo) / (s.boundary.hi - s.boundary.lo) * 32);
    const int r = static_cast<int>((s.boundary.hi - y) / (s.boundary.hi - s.boundary.lo) * 32);
    if (c < 0 || c >= 32 || r < 0 || r >= 32) continue;
    right += (s.boundary.outputs[static_cast<std::size_t>(r) * 32 + c] > 0.5f) == (data.y[i] > 0.5f);
  }
  CHECK(right >= data.count * 9 / 10);
}

TEST_CASE("a live run stops when asked", "[training]") {
  TrainingSetup setup;
  setup.options.epochs = 1000000;
  LiveTraining run(setup);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  run.stop();
  const LiveTraining::Snapshot s = wait_for_end(run);
  CHECK(s.error.empty());
  CHECK(s.curve.size() < 1000000u);
}

TEST_CASE("a run that cannot start says why and finishes", "[training]") {
  TrainingSetup setup;
  setup.variant = "fused";  // not a CPU variant
  LiveTraining run(setup);
  const LiveTraining::Snapshot s = wait_for_end(run);
  CHECK_THAT(s.error, Catch::Matchers::Contains("cpu"));
  CHECK(s.curve.empty());
  CHECK_THROWS_WITH(make_step(Layout{{784, 128, 10}}, 128, 0.1f, Loss::mse, "fused_registers", Backend::emulated),
                    Catch::Matchers::Contains("cannot run"));
  CHECK(training_variants(Layout{{2, 16, 1}}, 64, Backend::emulated) ==
        std::vector<std::string>{"layered", "fused", "fused_registers"});
  CHECK(training_variants(Layout{{784, 128, 10}}, 128, Backend::emulated) == std::vector<std::string>{"layered"});
}
