// The CNN's optimiser on the GPU: Adam, one thread per parameter, for both steps (cnn_gpu.hpp);
// the mixed step's also skips a step whose gradients overflowed and updates the loss scale.
// Plain CUDA, built for the GPU and for the emulator.
#include "cnn/cnn_gpu.hpp"
#include "common/launch.cuh"
#include "common/stored.cuh"

namespace gpulab::cnn {

namespace {

constexpr int kBlock = 256;

}  // namespace

// [snippet:cnn_loss_scale_update]
// The loss scale after a step (the mixed step's, by one thread): a step whose gradients
// overflowed (state[0]) halves it and starts the count again; `interval` good steps in a row
// (state[1]) double it.
__device__ void update_loss_scale(float* scale, int* state, const LossScaling& scaling) {
  if (state[0] != 0) {
    *scale *= scaling.backoff;
    state[1] = 0;
  } else if (++state[1] == scaling.interval) {
    *scale *= scaling.growth;
    state[1] = 0;
  }
}
// [/snippet]

// [snippet:cnn_adam]
// One thread per parameter: the moments follow g and g², are corrected for starting at 0
// (c1 = 1 − β1ᵗ, c2 = 1 − β2ᵗ), and the parameter moves by rate · m̂ / (√v̂ + ε).
// The mixed step's Adam (mixed.state not null) also skips a step whose gradients overflowed,
// updates the loss scale (thread 0), and writes each moved parameter's FP16 copy, which the next
// step's layers read.
__global__ void adam_kernel(float* params, const float* grads, float* m, float* v, std::size_t count, float rate,
                            float beta1, float beta2, float epsilon, float c1, float c2, MixedAdam mixed) {
  const std::size_t e = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (mixed.state != nullptr) {
    if (e == 0) update_loss_scale(mixed.scale, mixed.state, mixed.scaling);  // reads state[0], writes state[1]
    if (mixed.state[0] != 0) return;                                         // nothing moves
  }
  if (e >= count) return;
  const float g = grads[e];
  const float mean = beta1 * m[e] + (1.0f - beta1) * g;
  const float square = beta2 * v[e] + (1.0f - beta2) * g * g;
  m[e] = mean;
  v[e] = square;
  const float moved = params[e] - rate * (mean / c1) / (sqrtf(square / c2) + epsilon);
  params[e] = moved;
  if (mixed.fp16_copy != nullptr) kernel_view(mixed.fp16_copy)[e] = __float2half_rn(moved);
}
// [/snippet]

// ---------------------------------------------------------------- launcher

void adam(float* params, const float* grads, float* m, float* v, std::size_t count, float rate, float beta1,
          float beta2, float epsilon, float c1, float c2, const MixedAdam& mixed, void* stream) {
  if (count == 0) return;
  adam_kernel<<<blocks_for(count, kBlock), kBlock, 0, static_cast<cudaStream_t>(stream)>>>(
      params, grads, m, v, count, rate, beta1, beta2, epsilon, c1, c2, mixed);
  check_launch("adam_kernel", blocks_for(count, kBlock), kBlock);
}

}  // namespace gpulab::cnn
