// The GPU's FP32 ceiling, measured: every thread runs independent chains of fused multiply-adds
// on registers, with no memory traffic, so only the arithmetic units limit it.
#include <algorithm>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/fp32_peak.hpp"
#include "common/gpu_memory.hpp"
#include "common/launch.cuh"
#include "common/stream_hold.hpp"

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

double measure_fp32_gflops() {
  DeviceBuffer<float> out(1, "fp32 peak output");
  const int threads = 256;
  const int blocks = device_attribute(cudaDevAttrMultiProcessorCount) *
                     (device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor) / threads) * 4;
  cudaEvent_t start = nullptr, stop = nullptr;
  GPULAB_CUDA_CHECK(cudaEventCreate(&start));
  GPULAB_CUDA_CHECK(cudaEventCreate(&stop));
  std::vector<double> rates;
  StreamHold hold;  // the start event waits until the kernel is queued: the launch is not timed
  for (int rep = 0; rep < 8; ++rep) {
    hold.hold(100000);
    GPULAB_CUDA_CHECK(cudaEventRecord(start));
    fma_chains_kernel<<<blocks, threads>>>(out.data(), 1.0f);
    check_launch("fma_chains_kernel", static_cast<unsigned int>(blocks), threads);
    GPULAB_CUDA_CHECK(cudaEventRecord(stop));
    hold.release();
    GPULAB_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    GPULAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    const double flops = 2.0 * kChains * kIterations * static_cast<double>(blocks) * threads;
    if (rep >= 2) rates.push_back(flops / (ms * 1e-3) / 1e9);  // two warm-ups: clocks ramp up
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

}  // namespace gpulab::gpu
