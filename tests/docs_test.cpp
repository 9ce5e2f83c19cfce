// The lesson texts: code shown in them is the real code (no copy that drifts), and every lesson's
// text and kernel source exist.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <string>

#include "base/text_file.hpp"
#include "common/snippets.hpp"
#include "registry.hpp"

using namespace gpulab;

namespace {
std::string read(const std::filesystem::path& path) { return read_text_file(path.string()).value_or(""); }
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
    REQUIRE_FALSE(lesson->sources.empty());
    for (const std::string& source : lesson->sources) {
      CAPTURE(source);
      CHECK(std::filesystem::exists(root / source));
    }
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

TEST_CASE("app/README.md names every source file of the app, and the README every kernel folder", "[docs]") {
  // The maps of the code are checked against what exists, so they cannot go stale.
  const std::string app_readme = read(root / "app" / "README.md");
  for (const char* folder : {"core", "ui"}) {
    for (const auto& entry : std::filesystem::directory_iterator(root / "app" / folder)) {
      if (entry.path().extension() != ".cpp") continue;
      CAPTURE(entry.path().filename().string());
      CHECK(app_readme.find(entry.path().stem().string()) != std::string::npos);
    }
  }
  const std::string readme = read(root / "README.md");
  for (const auto& entry : std::filesystem::directory_iterator(root / "kernels")) {
    if (!entry.is_directory() || entry.path().filename() == "common" || entry.path().filename() == "emulator") continue;
    CAPTURE(entry.path().filename().string());
    CHECK(readme.find(entry.path().filename().string() + "/") != std::string::npos);
  }
}

TEST_CASE("the app names no lesson and no variant: it draws what each lesson offers", "[docs]") {
  // A lesson's id ("11") or a variant's name in quotes in app/ would make the app know a lesson by
  // name; what a lesson offers is in its Lesson (training, thread map, timeline, steps, ...).
  std::set<std::string> names;
  for (const Lesson* lesson : all_lessons()) {
    names.insert("\"" + lesson->id + "\"");
    for (const Variant& v : lesson->variants) names.insert("\"" + v.name + "\"");
  }
  for (const char* folder : {"core", "ui"}) {
    for (const auto& entry : std::filesystem::directory_iterator(root / "app" / folder)) {
      const std::string text = read(entry.path());
      for (const std::string& name : names) {
        CAPTURE(entry.path().filename().string(), name);
        CHECK(text.find(name) == std::string::npos);
      }
    }
  }
}

TEST_CASE("every snippet marked in the sources is quoted by a lesson text", "[docs]") {
  std::set<std::string> quoted;
  for (const auto& entry : std::filesystem::directory_iterator(root / "docs" / "lessons")) {
    if (entry.path().extension() != ".md") continue;
    for (const SnippetUse& use : snippet_uses(read(entry.path()))) quoted.insert(use.name);
  }
  for (const char* folder : {"kernels", "lessons", "exercises"}) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / folder)) {
      if (!entry.is_regular_file()) continue;
      const std::string text = read(entry.path());
      for (std::size_t at = 0; (at = text.find("// [snippet:", at)) != std::string::npos; ++at) {
        const std::size_t end = text.find(']', at);
        const std::string name = text.substr(at + 12, end - at - 12);
        CAPTURE(entry.path().string(), name);
        CHECK(quoted.count(name) == 1);
      }
    }
  }
}

TEST_CASE("every lesson folder is registered by its one line, in a part of the course, and the README follows",
          "[docs]") {
  // README's "A new lesson": a folder lessons/NN_name/ and one gpulab_add_lesson line; the
  // registry follows the lines (the course's order), and each lesson says the number and name of
  // its folder. The README's table lists the lessons in that order, each part under its title.
  std::set<std::string> folders;
  for (const auto& entry : std::filesystem::directory_iterator(root / "lessons")) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && name.size() > 3 && std::isdigit(static_cast<unsigned char>(name[0])) &&
        name[2] == '_') {
      folders.insert(name);
    }
  }
  const std::string readme = read(root / "README.md");
  std::set<std::string> registered;
  std::size_t previous_row = 0;
  std::string part;
  for (const Lesson* lesson : all_lessons()) {
    CAPTURE(lesson->id, lesson->name, lesson->part);
    CHECK_FALSE(lesson->part.empty());
    registered.insert(lesson->id + "_" + lesson->name);
    if (lesson->part != part) {  // the part's title row comes before its first lesson
      part = lesson->part;
      const std::size_t title = readme.find("| | **" + part + "** | | |", previous_row);
      CHECK(title != std::string::npos);
      if (title != std::string::npos) previous_row = title;
    }
    const std::size_t row = readme.find("| " + lesson->id + " | `lesson" + lesson->id + "_" + lesson->name + "` |");
    CHECK(row != std::string::npos);
    CHECK(row > previous_row);
    previous_row = std::max(previous_row, row == std::string::npos ? previous_row : row);
  }
  CHECK(registered == folders);
}
