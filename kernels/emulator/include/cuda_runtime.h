#pragma once
// GPU Lab's emulator: the CUDA runtime for a program compiled as plain C++, so that ordinary CUDA
// — cudaMalloc, kernel<<<grid, block>>>(...), __shared__, warp shuffles — runs on the CPU.
// The emulated build puts this folder ahead of the CUDA toolkit's: the same source compiles with
// nvcc against the real runtime. (kernel<<<...>>> itself is rewritten into a call of the emulator
// by GPU Lab's source rewrite, kernels/emulator/rewrite/rewrite.hpp, which every emulated build runs first.)
#include "emulator/language/cuda_language.hpp"
#include "emulator/observers/checker.hpp"
#include "emulator/runtime/runtime_api.hpp"

// The include guards of the CUDA toolkit's own headers of the same names, defined as they would
// be: where the toolkit's headers are on the include path too (a machine with CUDA installed), a
// toolkit header that includes "vector_types.h" or "driver_types.h" finds these guards set and
// adds no second definition; and code that tests for them (the CUDA samples' helper_cuda.h
// defines checkCudaErrors only #ifdef __DRIVER_TYPES_H__) sees the runtime it expects.
#define __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_API_H__
#define __DRIVER_TYPES_H__
#define __VECTOR_TYPES_H__
#define __DEVICE_LAUNCH_PARAMETERS_H__
