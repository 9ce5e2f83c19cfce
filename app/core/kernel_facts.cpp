#include "core/kernel_facts.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

namespace gpulab::app {

namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string kernel_code_folder(const std::string& data_dir, const std::string& built) {
  std::error_code ec;
  if (!built.empty() && std::filesystem::exists(std::filesystem::path(built) / "facts.json", ec)) return built;
  return (std::filesystem::path(data_dir) / "assets" / "kernel_code").string();
}

std::map<std::string, KernelFacts> load_kernel_facts(const std::string& folder) {
  std::map<std::string, KernelFacts> facts;
  const std::string text = read(std::filesystem::path(folder) / "facts.json");
  if (text.empty()) return facts;
  try {
    const nlohmann::json all = nlohmann::json::parse(text);  // (kept: items() refers to it)
    for (const auto& [name, j] : all.items()) {
      KernelFacts f;
      f.registers = j.value("registers", 0);
      f.shared_bytes = j.value("shared_bytes", std::uint64_t{0});
      f.local_bytes = j.value("local_bytes", std::uint64_t{0});
      f.stack_bytes = j.value("stack_bytes", std::uint64_t{0});
      f.arch = j.value("arch", std::string());
      facts[name] = f;
    }
  } catch (const nlohmann::json::exception&) {
    facts.clear();  // a damaged file: no facts rather than wrong ones
  }
  return facts;
}

std::vector<std::string> kernels_in_source(const std::string& text) {
  static const std::regex kernel(R"(__global__\s+(?:__launch_bounds__\([^)]*\)\s+)?void\s+(\w+)\s*\()");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kernel); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

std::string recorded_kernel_code(const std::string& folder, const std::string& kernel, bool ptx) {
  return read(std::filesystem::path(folder) / (kernel + (ptx ? ".ptx" : ".sass")));
}

Occupancy theoretical_occupancy(unsigned threads_per_block, int registers, std::uint64_t shared_bytes_per_block) {
  constexpr int kWarpsPerSm = 64, kBlocksPerSm = 32, kRegistersPerSm = 65536, kRegisterUnit = 256;
  constexpr std::uint64_t kSharedPerSm = 228 * 1024, kReservedPerBlock = 1024, kSharedUnit = 128;
  Occupancy o;
  if (threads_per_block == 0) return o;
  const int warps = static_cast<int>((threads_per_block + 31) / 32);
  struct Limit {
    int blocks;
    const char* name;
  };
  std::vector<Limit> limits = {{kWarpsPerSm / warps, "threads"}, {kBlocksPerSm, "blocks per SM"}};
  if (registers > 0) {
    const int per_warp = (registers * 32 + kRegisterUnit - 1) / kRegisterUnit * kRegisterUnit;
    limits.push_back({kRegistersPerSm / per_warp / warps, "registers"});
  }
  const std::uint64_t shared =
      (shared_bytes_per_block + kReservedPerBlock + kSharedUnit - 1) / kSharedUnit * kSharedUnit;
  limits.push_back({static_cast<int>(kSharedPerSm / shared), "shared memory"});
  const Limit tightest = *std::min_element(limits.begin(), limits.end(),
                                           [](const Limit& a, const Limit& b) { return a.blocks < b.blocks; });
  o.blocks_per_sm = std::max(0, tightest.blocks);
  o.fraction = static_cast<double>(o.blocks_per_sm * warps) / kWarpsPerSm;
  o.limiter = tightest.name;
  return o;
}

}  // namespace gpulab::app
