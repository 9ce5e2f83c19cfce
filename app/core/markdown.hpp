#pragma once
// The lesson texts (docs/lessons/*.md) parsed into blocks the app can draw: headings, paragraphs
// with emphasis and code, list items, tables and code blocks. md4c does the parsing.
#include <string>
#include <string_view>
#include <vector>

namespace gpulab::app {

struct TextRun {
  std::string text;
  bool strong = false, emphasis = false, code = false, link = false;
};

struct MarkdownBlock {
  enum class Kind { heading, paragraph, list_item, code, table, rule, quote };
  Kind kind = Kind::paragraph;
  int level = 0;                               // heading level 1-6; list nesting depth 1...
  std::string bullet;                          // a list item's mark: "•" or "3."
  std::vector<TextRun> runs;                   // heading, paragraph, list item, quote
  std::string code, language;                  // code block
  std::vector<std::vector<std::string>> rows;  // table; rows[0] is the header
};

// Never throws: text md4c cannot parse comes back as one paragraph holding it.
std::vector<MarkdownBlock> parse_markdown(std::string_view text);

// The lesson texts give an exercise's hints under headings "Hint 1", "Hint 2", ...: for each block,
// the number of the hint it belongs to (the heading and what follows it up to the next heading of
// the same or a higher level), or 0. The app shows them one at a time.
std::vector<int> hint_numbers(const std::vector<MarkdownBlock>& blocks);

// The lesson text's exercise: from its level-2 heading "Exercise…" to the next level-2 heading
// (empty when there is none).
std::vector<MarkdownBlock> exercise_section(const std::vector<MarkdownBlock>& blocks);

// Reads a file and parses it; a missing file gives one paragraph saying so.
std::vector<MarkdownBlock> load_markdown(const std::string& path);

}  // namespace gpulab::app
