#pragma once
// GPU Lab's emulator: the CUDA runtime for a program compiled as plain C++, so that ordinary CUDA
// — cudaMalloc, kernel<<<grid, block>>>(...), __shared__, warp shuffles — runs on the CPU.
// The emulated build puts this folder ahead of the CUDA toolkit's: the same source compiles with
// nvcc against the real runtime. (kernel<<<...>>> itself is rewritten into a call of the emulator
// by GPU Lab's source rewrite, kernels/emulator/rewrite.hpp, which every emulated build runs first.)
#include "emulator/checker.hpp"
#include "emulator/emulator.hpp"
#include "emulator/runtime_api.hpp"
