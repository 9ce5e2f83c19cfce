#pragma once
// The Visualize view of a lesson that trains an image classifier (Lesson::training, its live_images): a run
// in the background on the CPU, the GPU or the emulator, and what it has learnt so far — the loss
// and the accuracy on unseen images as curves, a grid of those images with the class the network
// picks (green when right), and the first layer's filters as pictures.
#include <memory>

#include "common/lesson.hpp"

namespace gpulab::app {

class ImageTrainingView {
 public:
  // Starts a first run (on the GPU where there is one) the first time it is drawn.
  void draw(const Lesson& lesson, bool gpu_usable);
  bool idle() const;

 private:
  void start(const Lesson& lesson, bool gpu_usable);

  int backend_ = -1;  // 0 cpu, 1 gpu, 2 emulated; -1: not chosen yet
  std::string lesson_id_;
  std::unique_ptr<ImageTraining> run_;
};

}  // namespace gpulab::app
