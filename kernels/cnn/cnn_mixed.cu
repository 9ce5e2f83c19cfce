// What the mixed-precision step adds to the FP32 one (cnn_step.cu), besides storing its arrays in
// FP16: the parameters' FP16 copy, and dynamic loss scaling.
//
//   to_fp16_kernel           one parameter each: the master weight rounded to FP16
//   unscale_kernel           one gradient each: divided by the scale, checked for inf and NaN
//
// and, in cnn_layers.cu's Adam, the scale's update and the FP16 copy of each moved parameter.
//
// FP16 keeps 11 significant bits and numbers from 6·10⁻⁸ to 65504: gradients of the size this
// network's lower layers have (10⁻⁶ and less at times) would round to 0. Scaling the loss by
// 2^16 scales every gradient with it (the backward pass is linear in dL); the parameters'
// gradients are summed in float and divided back before Adam sees them. Too large a scale makes
// some FP16 value overflow to inf: then the step is dropped and the scale halved, so it settles
// just below where overflows start. Plain CUDA, built for the GPU and for the emulator.
#include <cfloat>

#include "cnn/cnn_gpu.hpp"
#include "common/launch.cuh"
#include "common/stored.cuh"

namespace gpulab::cnn {

namespace {

constexpr int kBlock = 256;

cudaStream_t as_stream(void* stream) { return static_cast<cudaStream_t>(stream); }

}  // namespace

__global__ void to_fp16_kernel(const float* x, __half* y, std::size_t count) {
  const std::size_t e = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (e < count) y[e] = __float2half_rn(x[e]);
}

// [snippet:cnn_unscale]
// One thread per parameter's gradient: divided by the scale (a power of 2, so exactly), and
// state[0] set where it is not finite — inf, or NaN, which compares false with everything.
__global__ void unscale_kernel(float* grads, std::size_t count, const float* scale, int* state) {
  const std::size_t e = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (e >= count) return;
  const float g = grads[e] / *scale;
  grads[e] = g;
  if (!(fabsf(g) <= FLT_MAX)) atomicExch(&state[0], 1);
}

// [/snippet]

__global__ void start_scale_kernel(float* scale, int* state, float initial) {
  *scale = initial;
  state[0] = 0;
  state[1] = 0;
}

void to_fp16(const float* x, std::uint16_t* y, std::size_t count, void* stream) {
  if (count == 0) return;
  to_fp16_kernel<<<blocks_for(count, kBlock), kBlock, 0, as_stream(stream)>>>(x, kernel_view(y), count);
  check_launch("to_fp16_kernel", blocks_for(count, kBlock), kBlock);
}

void start_loss_scale(float* scale, int* state, const LossScaling& scaling, void* stream) {
  start_scale_kernel<<<1, 1, 0, as_stream(stream)>>>(scale, state, scaling.initial);
  check_launch("start_scale_kernel", 1, 1);
}

void unscale_gradients(float* grads, std::size_t count, const float* scale, int* state, void* stream) {
  GPULAB_CUDA_CHECK(cudaMemsetAsync(state, 0, sizeof(int), as_stream(stream)));  // no overflow seen yet
  if (count == 0) return;
  unscale_kernel<<<blocks_for(count, kBlock), kBlock, 0, as_stream(stream)>>>(grads, count, scale, state);
  check_launch("unscale_kernel", blocks_for(count, kBlock), kBlock);
}

}  // namespace gpulab::cnn
