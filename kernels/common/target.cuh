#pragma once
// What a kernel file (.cu) includes. Every kernel file is built twice from the same source: by
// nvcc for the GPU (GPULAB_TARGET = gpu) and as plain C++ against the emulator (GPULAB_TARGET =
// emulated). Its code lives in namespace gpulab::GPULAB_TARGET::<topic>, so both builds coexist
// in one program, and it launches kernels only through GPULAB_LAUNCH.
//
// Both targets provide, in namespace gpulab::GPULAB_TARGET: LaunchConfig {grid, block,
// shared_bytes, stream}, device() (the device's limits), launch(), and dynamic_shared<T>().
#if defined(GPULAB_TARGET_EMULATED)
#include "emulator/emulator.hpp"
#else
#include "common/gpu_target.cuh"
#endif

// Launches `kernel` with `config` and checks that it was accepted; a refused launch throws
// CudaError naming the kernel, its configuration, this file and line, and CUDA's message.
#define GPULAB_LAUNCH(kernel, config, ...) \
  ::gpulab::GPULAB_TARGET::launch(#kernel, __FILE__, __LINE__, (config), kernel __VA_OPT__(, ) __VA_ARGS__)
