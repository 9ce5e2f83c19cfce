#pragma once
// The emulator's internals shared by its own source files.
#include <cstddef>

#include "emulator/emulator.hpp"
#include "emulator/vector_types.hpp"

namespace gpulab::emulated {

// Dynamic shared memory per block: what a Hopper GPU allows with cudaFuncSetAttribute.
inline constexpr std::size_t kMaxDynamicShared = 227 * 1024;

unsigned worker_count();
// Whether the calling thread is running a kernel's thread (a launch from there is refused).
bool in_kernel();
// Runs the grid's blocks on the worker pool, each block's threads as fibers.
void run_blocks(dim3 grid, dim3 block, std::size_t shared_bytes, detail::ThreadLoop loop, const void* body);

}  // namespace gpulab::emulated
