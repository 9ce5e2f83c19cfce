#pragma once
// The emulator's memory counts (emulator/observers/memory_counts.hpp) as JSON: the "memory" array of a
// result in a results file, written by the executables and read back by the app.
#include <vector>

#include <nlohmann/json.hpp>

#include "emulator/observers/memory_counts.hpp"

namespace gpulab {

nlohmann::ordered_json memory_to_json(const std::vector<emulated::KernelTraffic>& kernels);
// Throws std::invalid_argument for a value that is not what memory_to_json writes.
std::vector<emulated::KernelTraffic> memory_from_json(const nlohmann::json& j);

}  // namespace gpulab
