#pragma once
// The GPU's FP32 arithmetic ceiling, measured (GPU builds only).

namespace gpulab::gpu {

// GFLOP/s of fused multiply-adds (2 FLOPs each) on every multiprocessor, the median of 6 runs.
double measure_fp32_gflops();

}  // namespace gpulab::gpu
