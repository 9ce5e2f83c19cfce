#pragma once
// A network that learns to classify images, trained live in the background (lesson 16's CNN), for
// the app's Visualize view: what it has learnt so far, as a snapshot the view copies each frame.
#include <string>
#include <utility>
#include <vector>

namespace gpulab {

struct ImageTrainingSnapshot {
  std::string network;                           // "32×32×3 → 16 → 32 → 2048 → 128 → 10"
  int steps = 0, total_steps = 0;                // done so far, and planned
  std::vector<std::pair<int, double>> loss;      // (step, the batch's loss)
  std::vector<std::pair<int, double>> accuracy;  // (step, accuracy on images it never saw)
  // A few of those images (channels × side × side each, any scale) with their labels and the
  // classes the network picks now; the classes' names.
  int side = 0, channels = 0;
  std::vector<std::vector<float>> images;
  std::vector<int> labels, predicted;
  std::vector<std::string> class_names;
  // The first layer's filters: count × channels × size × size.
  int filter_count = 0, filter_size = 0;
  std::vector<float> filters;
  bool finished = false;
  std::string error;   // why it stopped early, if it did
  double seconds = 0;  // wall time so far
};

class ImageTraining {
 public:
  virtual ~ImageTraining() = default;
  virtual ImageTrainingSnapshot snapshot() const = 0;
  virtual bool finished() const = 0;
  virtual void stop() = 0;
};

}  // namespace gpulab
