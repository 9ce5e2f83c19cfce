#pragma once
// Training lesson 07's network on any backend and variant, as the app's Visualize view and the
// tests do it: a step function over host data for train(), the decision boundary on a grid, and a
// run on its own thread that a UI can watch epoch by epoch.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "common/backend.hpp"
#include "mlp/mlp.hpp"
#include "mlp/mlp_data.hpp"
#include "mlp/mlp_train.hpp"

namespace gpulab::mlp {

// The variants that can train `net` with batches of `batch` on `backend` (cpu: "cpu"; the GPU:
// layered, cublas, graph, cublas_graph, and fused / fused_registers where they fit; emulated:
// layered, fused, fused_registers where they fit).
std::vector<std::string> training_variants(const Layout& net, int batch, Backend backend);

// One of those steps for train(): params, x and t are host memory; the step copies them to the
// device, runs, and copies the parameters back. Throws std::invalid_argument for a variant that
// cannot run there, and what the GPU or the emulator throws for a failed launch.
// `fused_threads`: the fused kernel's block (the emulator runs smaller blocks faster).
StepFunction make_step(const Layout& net, int batch, float lr, Loss loss, const std::string& variant, Backend backend,
                       int fused_threads = 512);

// The network's output over a size × size grid of the square [lo, hi]², row by row from the top
// (y = hi) down, x from left to right: the picture of what it has learnt.
struct Boundary {
  int size = 0;
  float lo = 0, hi = 0;
  std::vector<float> outputs;
};
Boundary decision_boundary(const Layout& net, std::span<const float> params, int size, float lo, float hi);

// The network and settings each dataset trains well with (the tests' and --train's).
struct TrainingPreset {
  Layout net;
  TrainOptions options;
};
TrainingPreset preset_for(Dataset dataset);

// --train: trains with `variant` ("" the fastest that fits) on `backend` for `epochs` (0: the
// preset's) and returns the report: loss and accuracy at ten points, the time, and the decision
// boundary drawn in text with the data. Throws std::invalid_argument for a bad request.
std::string training_report(const std::string& dataset, const std::string& variant, Backend backend, int epochs);

struct TrainingSetup {
  Dataset dataset = Dataset::moons;
  Layout net{{2, 16, 16, 1}};
  TrainOptions options{300, 64, 4.0f, Loss::bce};
  std::string variant = "cpu";
  Backend backend = Backend::cpu;
  int points = 512;
  std::uint64_t data_seed = 42, weight_seed = 7;
  int grid = 64;  // the boundary's resolution
};

// A training run on its own thread: an epoch at a time, with a snapshot after each (the loss and
// accuracy so far, the boundary now). stop() ends it after the current epoch.
class LiveTraining {
 public:
  struct Snapshot {
    std::vector<Epoch> curve;
    Boundary boundary;
    bool finished = false;
    std::string error;   // why it stopped early, if it did
    double seconds = 0;  // wall time of the steps so far
  };

  explicit LiveTraining(TrainingSetup setup);
  ~LiveTraining();
  LiveTraining(const LiveTraining&) = delete;
  LiveTraining& operator=(const LiveTraining&) = delete;

  void stop() { stop_ = true; }
  bool finished() const { return finished_; }  // without copying a snapshot
  Snapshot snapshot() const;
  const Data& data() const { return data_; }
  const TrainingSetup& setup() const { return setup_; }

 private:
  void run();

  TrainingSetup setup_;
  Data data_;
  mutable std::mutex mutex_;
  Snapshot latest_;
  std::atomic<bool> stop_{false}, finished_{false};
  std::thread thread_;
};

}  // namespace gpulab::mlp
