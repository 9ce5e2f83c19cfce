#pragma once
// Where the GPU starts to win: from a sweep's results, the smallest size from which the best GPU
// variant beats the best CPU variant, end to end (copies included) and on the kernel alone.
#include <string>
#include <vector>

#include "common/results.hpp"

namespace gpulab {

// Sentences for the end of a sweep; empty when the results lack passed CPU or GPU rows.
std::vector<std::string> crossover_summary(const std::vector<Result>& results);

}  // namespace gpulab
