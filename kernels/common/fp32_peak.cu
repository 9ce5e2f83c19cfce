// The kernel behind the GPU's FP32 ceiling (timed by lessons/common/peaks.cpp): every thread runs
// independent chains of fused multiply-adds on registers, with no memory traffic, so only the
// arithmetic units limit it.
#include "common/fp32_peak.hpp"
#include "common/launch.cuh"

namespace gpulab::gpu {

namespace {

constexpr int kChains = 8;  // independent FMAs in flight per thread: hides the 4-cycle latency
constexpr int kIterations = 4096;

__global__ void fma_chains_kernel(float* out, float seed) {
  float x[kChains];
  for (int c = 0; c < kChains; ++c) x[c] = seed + static_cast<float>(threadIdx.x + c);
  for (int i = 0; i < kIterations; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) x[c] = fmaf(x[c], 0.999999f, 1e-7f);
  }
  float sum = 0.0f;
  for (int c = 0; c < kChains; ++c) sum += x[c];
  if (sum == 12345.678f) out[0] = sum;  // never true, but the compiler cannot know: the work stays
}

}  // namespace

void launch_fma_chains(float* out, int blocks, int threads) {
  fma_chains_kernel<<<blocks, threads>>>(out, 1.0f);
  check_launch("fma_chains_kernel", static_cast<unsigned int>(blocks), threads);
}

double fma_chains_flops(int blocks, int threads) {
  return 2.0 * kChains * kIterations * static_cast<double>(blocks) * threads;
}

}  // namespace gpulab::gpu
