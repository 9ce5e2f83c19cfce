#pragma once
// Training lesson 07's network with 16-bit storage, on the CPU: every stored activation, delta,
// weight copy and gradient is rounded to FP16 as a GPU in mixed precision would store it, while
// sums and the master weights stay FP32. With and without loss scaling, to show what underflow
// does to the gradients and how scaling the loss keeps them in FP16's range.
#include <cstdint>
#include <span>
#include <vector>

#include "mlp/mlp.hpp"

namespace gpulab::mixed {

enum class Precision {
  fp32,         // everything in FP32: the reference curve
  fp16,         // FP16 storage, the loss as it is: small deltas round to zero
  fp16_scaled,  // FP16 storage, the loss multiplied by a scale that adapts (dynamic loss scaling)
};

struct MixedStep {
  float loss = 0;
  float scale = 1;       // the loss scale this step used
  bool skipped = false;  // the scaled gradients overflowed: no update, the scale halves
  double underflow = 0;  // the fraction of non-zero deltas that FP16 storage turned to 0
};

// Dynamic loss scaling's state: the scale, and the good steps since it last changed.
struct LossScale {
  float scale = 65536.0f;
  int good_steps = 0;
  static constexpr int kGrowEvery = 200;  // steps without overflow before the scale doubles
};

// One SGD step on the whole batch (MSE loss), updating the FP32 master parameters.
MixedStep mixed_step(const gpulab::mlp::Layout& net, std::span<float> master, std::span<const float> x,
                     std::span<const float> t, int batch, float lr, Precision precision, LossScale& scale);

}  // namespace gpulab::mixed
