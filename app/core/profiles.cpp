#include "core/profiles.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace gpulab::app {

const std::vector<ProfileMetric>* Profile::section(const std::string& name) const {
  for (const auto& [title, metrics] : sections) {
    if (title == name) return &metrics;
  }
  return nullptr;
}

std::vector<Profile> load_profiles(const std::string& data_dir, std::vector<std::string>& errors) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(data_dir) / "assets" / "profiles", ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<Profile> profiles;
  for (const fs::path& path : files) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    try {
      const nlohmann::ordered_json j = nlohmann::ordered_json::parse(text.str());
      Profile p;
      for (auto [field, key] : {std::pair{&p.lesson, "lesson"},
                                {&p.variant, "variant"},
                                {&p.kernel, "kernel"},
                                {&p.device, "device"},
                                {&p.driver, "driver"},
                                {&p.ncu, "ncu"},
                                {&p.recorded, "recorded"},
                                {&p.command, "command"}}) {
        *field = j.at(key).get<std::string>();
      }
      for (const auto& [title, rows] : j.at("sections").items()) {
        std::vector<ProfileMetric> metrics;
        for (const auto& row : rows) {
          if (row.size() == 3 && !row[0].get<std::string>().empty()) {
            metrics.push_back({row[0].get<std::string>(), row[1].get<std::string>(), row[2].get<std::string>()});
          }
        }
        if (!metrics.empty()) p.sections.emplace_back(title, std::move(metrics));
      }
      profiles.push_back(std::move(p));
    } catch (const nlohmann::json::exception& e) {
      errors.push_back(path.string() + ": not a recorded profile (" + e.what() + ")");
    }
  }
  return profiles;
}

}  // namespace gpulab::app
