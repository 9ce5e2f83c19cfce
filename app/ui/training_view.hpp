#pragma once
// Lesson 07's Visualize view: train the tiny network on a 2-D dataset on any backend and watch it
// learn — the decision boundary as a heat map under the data points, and the loss and accuracy
// curves, redrawn from the training thread's latest snapshot every frame.
#include <memory>
#include <string>

#include "07_tiny_network/training.hpp"

namespace gpulab::app {

class TrainingView {
 public:
  // `gpu_usable`: offer the GPU backend. Starts a first run (moons, on the GPU where there is
  // one) the first time it is drawn.
  void draw(bool gpu_usable);
  // No run is going on (the screenshot mode waits for one to finish).
  bool idle() const;

 private:
  void start(bool gpu_usable);

  int dataset_ = 1, hidden_layers_ = 2, width_index_ = 1, epochs_ = 300, batch_ = 64;
  float lr_ = 4.0f;
  int backend_ = -1;  // 0 cpu, 1 gpu, 2 emulated; -1: not chosen yet
  std::string variant_;
  bool started_ = false;
  std::unique_ptr<mlp::LiveTraining> run_;
};

}  // namespace gpulab::app
