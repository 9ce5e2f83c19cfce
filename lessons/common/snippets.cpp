#include "common/snippets.hpp"

#include <sstream>

namespace gpulab {

namespace {

std::vector<std::string> lines_of(std::string_view text) {
  std::vector<std::string> lines;
  std::istringstream in{std::string(text)};
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

std::optional<std::string> extract_snippet(std::string_view source, std::string_view name) {
  const std::string begin = "[snippet:" + std::string(name) + "]";
  std::optional<std::string> code;
  for (const std::string& line : lines_of(source)) {
    if (!code) {
      if (line.find(begin) != std::string::npos) code.emplace();
    } else if (line.find("[/snippet]") != std::string::npos) {
      return code;
    } else {
      *code += line + "\n";
    }
  }
  return std::nullopt;  // no marker, or no end marker
}

std::vector<SnippetUse> snippet_uses(std::string_view markdown) {
  std::vector<SnippetUse> uses;
  const std::vector<std::string> lines = lines_of(markdown);
  const std::string marker = "<!-- snippet:";
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t at = lines[i].find(marker);
    if (at == std::string::npos) continue;
    std::istringstream words(lines[i].substr(at + marker.size()));
    SnippetUse use;
    words >> use.path >> use.name;
    // The fenced block right after the comment: ``` to ```.
    std::size_t j = i + 1;
    if (j < lines.size() && lines[j].rfind("```", 0) == 0) {
      for (++j; j < lines.size() && lines[j].rfind("```", 0) != 0; ++j) use.code += lines[j] + "\n";
    }
    uses.push_back(std::move(use));
    i = j;
  }
  return uses;
}

}  // namespace gpulab
