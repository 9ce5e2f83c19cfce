#pragma once
// A file's whole text: the one way GPU Lab reads a file (sources, lesson texts, settings, result
// files). nullopt when it cannot be opened; each caller says what that means for it.
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace gpulab {

inline std::optional<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace gpulab
