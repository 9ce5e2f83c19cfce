#include "core/code_tabs.hpp"

#include <algorithm>
#include <filesystem>

namespace gpulab::app {

std::vector<std::string> code_tab_names(const std::vector<std::pair<std::string, std::string>>& sources) {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  for (const auto& [path, text] : sources) {
    const fs::path file(path);
    const bool shared = std::count_if(sources.begin(), sources.end(), [&](const auto& other) {
                          return fs::path(other.first).filename() == file.filename();
                        }) > 1;
    names.push_back(shared ? (file.parent_path().filename() / file.filename()).string() : file.filename().string());
  }
  return names;
}

}  // namespace gpulab::app
