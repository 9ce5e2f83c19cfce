#pragma once
// The emulator's internals shared by its own source files.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <string>

#include "emulator/language/cuda_language.hpp"
#include "emulator/language/vector_types.hpp"

namespace gpulab::emulated {

// Dynamic shared memory per block: what a Hopper GPU allows with cudaFuncSetAttribute.
inline constexpr std::size_t kMaxDynamicShared = 227 * 1024;

unsigned worker_count();
// Whether the calling thread is running a kernel's thread (a launch from there is refused).
bool in_kernel();
// Runs the grid's blocks on the worker pool, each block's threads as fibers (or, for a kernel the
// rewrite split at its barriers, on the fast path, in phases: phases.hpp).
void run_blocks(dim3 grid, dim3 block, std::size_t shared_bytes, detail::ThreadLoop loop, const void* body);

// A kernel fault with the CUDA error its launch fails with (an illegal address, a misaligned one).
struct KernelFault : std::runtime_error {
  KernelFault(cudaError_t error, const std::string& what) : std::runtime_error(what), code(error) {}
  cudaError_t code;
};
// Stops the running kernel thread where it stands (see scheduler.cpp): its block fails with
// `why` and the launch with it.
[[noreturn]] void stop_running_thread(std::exception_ptr why);
// How many blocks have run in phases so far, in this process (the tests' proof that they did).
std::uint64_t blocks_run_in_phases();

}  // namespace gpulab::emulated
