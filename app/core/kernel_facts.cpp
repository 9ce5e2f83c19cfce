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

// TOPIC::NAME's recorded file: ROOT/TOPIC/machine_code/NAME.extension.
std::filesystem::path recorded_file(const std::string& root, const std::string& kernel, const std::string& extension) {
  const std::size_t colons = kernel.find("::");
  if (colons == std::string::npos) return {};
  return std::filesystem::path(root) / kernel.substr(0, colons) / "machine_code" /
         (kernel.substr(colons + 2) + extension);
}

// One folder's facts.json into `facts`, its kernels as TOPIC::NAME; a damaged file adds none
// (no facts rather than wrong ones).
void load_topic(const std::filesystem::path& file, const std::string& topic,
                std::map<std::string, KernelFacts>& facts) {
  const std::string text = read(file);
  if (text.empty()) return;
  try {
    const nlohmann::json all = nlohmann::json::parse(text);  // (kept: items() refers to it)
    std::map<std::string, KernelFacts> found;
    for (const auto& [name, j] : all.items()) {
      KernelFacts f;
      f.registers = j.value("registers", 0);
      f.shared_bytes = j.value("shared_bytes", std::uint64_t{0});
      f.local_bytes = j.value("local_bytes", std::uint64_t{0});
      f.stack_bytes = j.value("stack_bytes", std::uint64_t{0});
      f.arch = j.value("arch", std::string());
      found[topic + "::" + name] = f;
    }
    facts.merge(found);
  } catch (const nlohmann::json::exception&) {
  }
}

}  // namespace

std::string kernel_code_folder(const std::string& data_dir, const std::string& built) {
  std::error_code ec;
  if (!built.empty() && std::filesystem::exists(recorded_file(built, "vector_add::facts", ".json"), ec)) return built;
  return (std::filesystem::path(data_dir) / "kernels").string();
}

std::map<std::string, KernelFacts> load_kernel_facts(const std::string& root) {
  std::map<std::string, KernelFacts> facts;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    const auto file = entry.path() / "machine_code" / "facts.json";
    if (std::filesystem::exists(file, ec)) load_topic(file, entry.path().filename().string(), facts);
  }
  return facts;
}

std::string kernel_topic(const std::string& source_path) {
  const std::filesystem::path p(source_path);
  auto part = p.begin();
  if (part == p.end() || *part != "kernels" || ++part == p.end()) return "";
  const auto topic = part;
  return ++part == p.end() ? "" : topic->string();  // a folder, not kernels/FILE
}

std::vector<std::string> kernels_in_source(const std::string& text) {
  // __launch_bounds__(…) stands before or after `void` (both are CUDA), its arguments may hold
  // one level of parentheses: __launch_bounds__((kTile * kTile) / 4).
  static const std::string bounds = R"((?:__launch_bounds__\((?:[^()]|\([^()]*\))*\)\s+)?)";
  static const std::regex kernel("__global__\\s+" + bounds + "void\\s+" + bounds + R"((\w+)\s*\()");
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kernel); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

std::string recorded_kernel_code(const std::string& root, const std::string& kernel, bool ptx) {
  const auto file = recorded_file(root, kernel, ptx ? ".ptx" : ".sass");
  return file.empty() ? std::string() : read(file);
}

std::string qualified_kernel(const std::vector<std::string>& kernels, const std::string& name) {
  for (const std::string& k : kernels) {
    if (k.size() > name.size() + 2 && k.ends_with(name) && k.compare(k.size() - name.size() - 2, 2, "::") == 0)
      return k;
  }
  return name;
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
