#pragma once
// The capstone's network: the seed article's small CNN, trained with softmax cross-entropy and
// Adam. Images are `channels` × side × side (NCHW batches), and the layers are
//
//   conv1  channels → c1 filters of 3 × 3, padding 1     ReLU   2 × 2 max-pool   side / 2
//   conv2  c1 → c2 filters of 3 × 3, padding 1           ReLU   2 × 2 max-pool   side / 4
//   fc1    c2 · (side / 4)² → hidden                     ReLU
//   fc2    hidden → classes                              softmax, cross-entropy against the label
//
// The seed's sizes are Layout{} (32 × 32 × 3 images, 16 and 32 filters, 2048 → 128 → 10); the
// tests and the emulator use smaller ones. Every parameter lives in one flat array, block after
// block (w1, b1, w2, b2, w3, b3, w4, b4; filters K × C × 3 × 3, linear weights out × in, row-major),
// so the CPU, the GPU and the emulator share one layout and an optimiser step is one loop.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gpulab::cnn {

struct Layout {
  int side = 32, channels = 3, c1 = 16, c2 = 32, hidden = 128, classes = 10;

  int side1() const { return side / 2; }  // after the first pool
  int side2() const { return side / 4; }  // after the second
  int features() const { return c2 * side2() * side2(); }
  std::size_t image_size() const { return static_cast<std::size_t>(channels) * side * side; }

  // The parameter blocks, in the order they are stored.
  enum Block { w1, b1, w2, b2, w3, b3, w4, b4, blocks };
  std::size_t size(Block b) const;
  std::size_t offset(Block b) const;
  std::size_t parameters() const { return offset(blocks); }
  // The inputs of one output of the block's layer (PyTorch's fan_in, which sets its initial range).
  int fan_in(Block b) const;
  // Multiply-adds of one forward pass for one image.
  double macs() const;
};

// Throws std::invalid_argument unless side is a multiple of 4 from 4 to 256 and every width is
// from 1 to 4096.
void check_layout(const Layout& net);
std::string to_string(const Layout& net);  // "32×32×3 → 16 → 32 → 2048 → 128 → 10"

// How far a step's gradients are from the reference's, layer by layer: the largest over the four
// layers of ‖got − expected‖ / ‖expected‖ over the layer's weights and bias together (0 where the
// expected gradients are 0 and got is too); `worst` gets the layer's weight block. A mixed-precision
// step is checked this way: rounding two close values to FP16 can make them equal and send a
// max-pool's gradient to the other one, which moves a few gradients a lot and a layer's norm
// little; and a bias's gradient, a sum of terms that cancel, keeps FP16's error of the terms.
double largest_layer_error(const Layout& net, std::span<const float> got, std::span<const double> expected,
                           Layout::Block* worst = nullptr);
// The layer a parameter block belongs to: conv1, conv2, fc1 or fc2.
std::string layer_name(Layout::Block b);

// PyTorch's default initial values: every weight and bias of a layer uniform in ±1/√fan_in, from
// the seed.
std::vector<float> initial_parameters(const Layout& net, std::uint64_t seed);

// Adam (Kingma & Ba) with PyTorch's defaults; `step` counts from 1 and sets the bias correction.
struct Adam {
  double rate = 1e-3, beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
};

// Dynamic loss scaling for the mixed-precision step, PyTorch's GradScaler defaults: the scale
// starts at 2^16, halves on a step whose gradients overflow (that step is skipped) and doubles
// after `interval` steps in a row without one.
struct LossScaling {
  float initial = 65536.0f, growth = 2.0f, backoff = 0.5f;
  int interval = 2000;
};

// The optimiser's state beside the parameters: first and second moments, one of each per parameter.
struct Moments {
  std::vector<float> m, v;
  explicit Moments(std::size_t parameters = 0) : m(parameters, 0.0f), v(parameters, 0.0f) {}
};

}  // namespace gpulab::cnn
