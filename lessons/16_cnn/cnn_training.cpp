#include "16_cnn/cnn_training.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "16_cnn/cnn_trainer.hpp"
#include "cnn/cnn.hpp"
#include "cnn/cnn_data.hpp"

namespace gpulab::cnn {

TrainingSetup training_setup(const std::string& dataset, Backend backend, int epochs) {
  if (dataset != "shapes" && dataset != "noise") {
    throw std::invalid_argument("unknown dataset '" + dataset +
                                "' (shapes: ten classes of shapes; noise: the seed's random images, for timing)");
  }
  // The emulator runs every GPU thread on the CPU: it trains a smaller network on smaller images.
  const bool small = backend == Backend::emulated;
  TrainingSetup setup;
  setup.net = small ? Layout{16, 3, 8, 16, 64, 10} : Layout{};
  setup.train_count = small ? 2000 : 20000;
  setup.test_count = small ? 200 : 1000;
  setup.steps = std::max(1, epochs) * (setup.train_count / kTrainingBatch);
  setup.shapes = dataset == "shapes";
  return setup;
}

Images training_images(const TrainingSetup& setup, bool test) {
  const int count = test ? setup.test_count : setup.train_count;
  return setup.shapes ? make_shapes(count, setup.net.side, test ? 2 : 1)
                      : make_noise(count, setup.net.side, test ? 2 : 1);
}

std::string training_report(const std::string& dataset, const std::string& variant, Backend backend, int epochs) {
  const TrainingStep* step = &kTrainingSteps[0];
  if (backend == Backend::cpu) {
    if (!variant.empty() && variant != "cpu")
      throw std::invalid_argument("lesson 16 trains with 'cpu' on this backend");
  } else if (!variant.empty()) {
    const auto named = std::find_if(std::begin(kTrainingSteps), std::end(kTrainingSteps),
                                    [&](const TrainingStep& s) { return variant == s.name; });
    if (named == std::end(kTrainingSteps)) {
      throw std::invalid_argument(
          "lesson 16 trains with 'layered', 'implicit_gemm', 'mixed', 'tensor_cores' or 'cudnn' (GPU) on this backend");
    }
    step = &*named;
  }
  const bool mixed = step->loss_scaled && backend != Backend::cpu;
  const TrainingSetup setup = training_setup(dataset, backend, epochs);
  const Images train = training_images(setup, false), test = training_images(setup, true);
  Trainer trainer = make_trainer(setup.net, initial_parameters(setup.net, 3), backend, *step);
  std::string out = fmt::format(
      "Lesson 16: the CNN {} on {} ({} training images, {} test), batches of {}, Adam (rate 1e-3), {} steps, on "
      "{}{}\n\n"
      "{:>6} {:>10} {:>10}\n",
      to_string(setup.net), dataset, train.count, test.count, kTrainingBatch, setup.steps, to_string(backend),
      backend == Backend::cpu ? "" : fmt::format(" ({})", step->name), "step", "loss", "ms");
  const auto start = std::chrono::steady_clock::now();
  const int every = std::max(1, setup.steps / 10);
  for (int t = 1; t <= setup.steps; ++t) {
    const int first = ((t - 1) * kTrainingBatch) % (train.count - kTrainingBatch + 1);
    const float loss =
        trainer.step(images_of(train, first, kTrainingBatch), labels_of(train, first, kTrainingBatch), t);
    if (t == 1 || t % every == 0 || t == setup.steps) {
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      out += fmt::format("{:>6} {:>10.4f} {:>10.0f}\n", t, loss, ms);
    }
  }
  if (mixed)
    out += fmt::format("\nsteps the loss scaling skipped (a gradient overflowed FP16): {}\n", trainer.skipped_steps());
  return out + fmt::format("\ntest accuracy: {:.1f} % of {} images it never saw\n",
                           100 * accuracy_of(trainer.predict(test), test), test.count);
}

}  // namespace gpulab::cnn
