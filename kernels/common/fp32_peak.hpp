#pragma once
// The kernel behind the GPU's FP32 arithmetic ceiling (GPU builds only); lessons/common/peaks.cpp
// times it.

namespace gpulab::gpu {

// `blocks` × `threads` threads each running independent chains of fused multiply-adds (2 FLOPs
// each) on registers; `out` (one float) is never written, but the compiler cannot know it.
void launch_fma_chains(float* out, int blocks, int threads);
double fma_chains_flops(int blocks, int threads);

}  // namespace gpulab::gpu
