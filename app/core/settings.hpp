#pragma once
// What the app remembers between sessions (its last lesson and view, the text size); ImGui keeps
// the window layout in its own file beside this one. A missing or corrupt file gives the defaults
// and a message, never a crash.
#include <optional>
#include <string>

namespace gpulab::app {

struct Settings {
  std::string lesson;          // its id; "": the course's first
  std::string view = "learn";  // learn, code, run, visualize, device
  float text_scale = 1.0f;     // on top of the monitor's DPI scale
};

struct LoadedSettings {
  Settings settings;
  std::string problem;  // why the defaults were used; empty when the file was read
};

// $XDG_CONFIG_HOME/gpulab (or ~/.config/gpulab); nullopt when neither is set.
std::optional<std::string> settings_folder();

LoadedSettings load_settings(const std::string& path);
LoadedSettings parse_settings(const std::string& text);
std::string format_settings(const Settings& settings);

}  // namespace gpulab::app
