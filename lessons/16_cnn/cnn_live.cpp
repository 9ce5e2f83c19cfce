#include "16_cnn/cnn_live.hpp"

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "16_cnn/cnn_trainer.hpp"
#include "16_cnn/cnn_training.hpp"

namespace gpulab::cnn {

namespace {

constexpr int kShown = 16;       // test images in the view's grid
constexpr int kEvaluated = 200;  // test images behind each accuracy point
constexpr int kPoints = 40;      // accuracy points over the run

class LiveCnn : public ImageTraining {
 public:
  explicit LiveCnn(Backend backend) : backend_(backend) {
    thread_ = std::thread([this] { run(); });
  }
  ~LiveCnn() override {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  ImageTrainingSnapshot snapshot() const override {
    std::lock_guard lock(mutex_);
    return latest_;
  }
  bool finished() const override { return finished_; }
  void stop() override { stop_ = true; }

 private:
  void run() {
    const auto start = std::chrono::steady_clock::now();
    try {
      // Three passes over the shapes on the GPU (about a second); one elsewhere (the CPU takes ~30 ms a step).
      const TrainingSetup setup = training_setup("shapes", backend_, backend_ == Backend::gpu ? 3 : 1);
      const Images train = training_images(setup, false), full_test = training_images(setup, true);
      Images test = full_test;
      test.count = std::min(kEvaluated, full_test.count);
      test.x.resize(static_cast<std::size_t>(test.count) * setup.net.image_size());
      test.label.resize(static_cast<std::size_t>(test.count));
      Trainer trainer = make_trainer(setup.net, initial_parameters(setup.net, 3), backend_);
      {
        std::lock_guard lock(mutex_);
        latest_.network = to_string(setup.net);
        latest_.total_steps = setup.steps;
        latest_.side = setup.net.side;
        latest_.channels = setup.net.channels;
        for (int i = 0; i < kShown; ++i) {
          const auto image = images_of(test, i, 1);
          latest_.images.emplace_back(image.begin(), image.end());
          latest_.labels.push_back(test.label[static_cast<std::size_t>(i)]);
        }
        latest_.class_names.assign(kShapeNames.begin(), kShapeNames.end());
        latest_.filter_count = setup.net.c1;
        latest_.filter_size = 3;
      }
      const int every = std::max(1, setup.steps / kPoints);
      for (int t = 1; t <= setup.steps && !stop_; ++t) {
        const int first = ((t - 1) * kTrainingBatch) % (train.count - kTrainingBatch + 1);
        const float loss =
            trainer.step(images_of(train, first, kTrainingBatch), labels_of(train, first, kTrainingBatch), t);
        const bool evaluate = t == 1 || t % every == 0 || t == setup.steps;
        std::vector<int> picked;
        std::vector<float> params;
        if (evaluate) {
          picked = trainer.predict(test);
          params = trainer.parameters();
        }
        std::lock_guard lock(mutex_);
        latest_.steps = t;
        latest_.loss.emplace_back(t, loss);
        latest_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (evaluate) {
          latest_.accuracy.emplace_back(t, accuracy_of(picked, test));
          latest_.predicted.assign(picked.begin(), picked.begin() + kShown);
          const auto w1 = params.begin() + static_cast<std::ptrdiff_t>(setup.net.offset(Layout::w1));
          latest_.filters.assign(w1, w1 + static_cast<std::ptrdiff_t>(setup.net.size(Layout::w1)));
        }
      }
    } catch (const std::exception& e) {
      std::lock_guard lock(mutex_);
      latest_.error = e.what();
    }
    std::lock_guard lock(mutex_);
    latest_.finished = true;
    finished_ = true;
  }

  Backend backend_;
  mutable std::mutex mutex_;
  ImageTrainingSnapshot latest_;
  std::atomic<bool> stop_{false}, finished_{false};
  std::thread thread_;
};

}  // namespace

std::unique_ptr<ImageTraining> live_training(Backend backend) { return std::make_unique<LiveCnn>(backend); }

}  // namespace gpulab::cnn
