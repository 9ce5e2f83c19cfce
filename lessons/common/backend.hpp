#pragma once
// Where a variant runs: the CPU, the GPU, or the GPU kernel emulated on the CPU.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab {

enum class Backend { cpu, gpu, emulated };

inline constexpr Backend kAllBackends[] = {Backend::cpu, Backend::gpu, Backend::emulated};

std::string_view to_string(Backend backend);
std::optional<Backend> parse_backend(std::string_view name);

}  // namespace gpulab
