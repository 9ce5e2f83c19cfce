// The settings file: a small JSON object.
#include "core/settings.hpp"

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "base/text_file.hpp"

namespace gpulab::app {

std::optional<std::string> settings_folder() {
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::string(xdg) + "/gpulab";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.config/gpulab";
  }
  return std::nullopt;
}

LoadedSettings parse_settings(const std::string& text) {
  LoadedSettings loaded;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    loaded.problem = "the settings file is not a JSON object; using the defaults";
    return loaded;
  }
  Settings& s = loaded.settings;
  if (j.contains("lesson") && j["lesson"].is_string()) s.lesson = j["lesson"].get<std::string>();
  if (j.contains("view") && j["view"].is_string()) s.view = j["view"].get<std::string>();
  if (j.contains("text_scale") && j["text_scale"].is_number()) {
    const auto scale = j["text_scale"].get<double>();
    if (scale >= 0.5 && scale <= 3.0) s.text_scale = static_cast<float>(scale);
  }
  return loaded;
}

LoadedSettings load_settings(const std::string& path) {
  const std::optional<std::string> text = read_text_file(path);
  if (!text) return {};  // the first start: nothing to remember yet
  LoadedSettings loaded = parse_settings(*text);
  if (!loaded.problem.empty()) loaded.problem = path + ": " + loaded.problem;
  return loaded;
}

std::string format_settings(const Settings& s) {
  const nlohmann::ordered_json j = {{"lesson", s.lesson}, {"view", s.view}, {"text_scale", s.text_scale}};
  return j.dump(2) + "\n";
}

}  // namespace gpulab::app
