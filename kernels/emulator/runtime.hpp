#pragma once
// The emulator's internals shared by its own source files.
#include <functional>

#include "emulator/emulator.hpp"

namespace gpulab::emulated {

unsigned worker_count();
// Runs the grid's blocks on the worker pool, each block's threads as fibers.
void run_blocks(const LaunchConfig& config, const std::function<void()>& body);

}  // namespace gpulab::emulated
