// The lesson texts: code shown in them is the real code (no copy that drifts), and every lesson's
// text and kernel source exist.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/snippets.hpp"
#include "registry.hpp"

using namespace gpulab;

namespace {
std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}
const std::filesystem::path root = GPULAB_SOURCE_DIR;
}  // namespace

TEST_CASE("a snippet is the code between its markers", "[docs]") {
  const std::string source = "a\n// [snippet:x]\nint x = 1;\nint y;\n// [/snippet]\nb\n";
  CHECK(extract_snippet(source, "x") == "int x = 1;\nint y;\n");
  CHECK_FALSE(extract_snippet(source, "z"));
  CHECK_FALSE(extract_snippet("// [snippet:x]\nno end\n", "x"));
  const auto uses = snippet_uses("text\n<!-- snippet: k/a.cu x -->\n```cuda\nint x = 1;\n```\nmore\n");
  REQUIRE(uses.size() == 1);
  CHECK(uses[0].path == "k/a.cu");
  CHECK(uses[0].name == "x");
  CHECK(uses[0].code == "int x = 1;\n");
}

TEST_CASE("every lesson's text and kernel source exist", "[docs]") {
  for (const Lesson* lesson : all_lessons()) {
    CAPTURE(lesson->id);
    CHECK(std::filesystem::exists(root / lesson->text_file));
    CHECK(std::filesystem::exists(root / lesson->source_file));
  }
}

TEST_CASE("code quoted in the lesson texts matches the source it comes from", "[docs]") {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root / "docs" / "lessons")) {
    if (entry.path().extension() != ".md") continue;
    for (const SnippetUse& use : snippet_uses(read(entry.path()))) {
      CAPTURE(entry.path().filename().string(), use.path, use.name);
      const auto code = extract_snippet(read(root / use.path), use.name);
      REQUIRE(code);
      CHECK(*code == use.code);
      ++checked;
    }
  }
  CHECK(checked > 0);
}
