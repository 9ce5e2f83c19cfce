#pragma once
// The app's fonts: Inter for text and JetBrains Mono for code, from Debian's font packages found at
// run time, at the monitor's scale; ImGui's built-in font where a file is missing.
#include <imgui.h>

#include <string>

namespace gpulab::app {

struct Fonts {
  ImFont* regular = nullptr;
  ImFont* bold = nullptr;
  ImFont* italic = nullptr;
  ImFont* mono = nullptr;
  ImFont* heading[3] = {nullptr, nullptr, nullptr};  // h1, h2, h3 and smaller
  std::string note;                                  // which fonts were missing, for the device panel's "about" line
};

// Adds the fonts to ImGui's atlas; call before the first frame.
Fonts load_fonts(float scale);

}  // namespace gpulab::app
