// md4c callbacks collecting the blocks the app draws.
#include "core/markdown.hpp"

#include <md4c.h>

#include <cstdio>

#include "base/text_file.hpp"

namespace gpulab::app {

namespace {

struct Collector {
  std::vector<MarkdownBlock> blocks;
  std::vector<MarkdownBlock::Kind> open;  // the enclosing text blocks
  struct List {
    bool ordered = false;
    unsigned next = 1;
  };
  std::vector<List> lists;
  int strong = 0, emphasis = 0, code = 0, link = 0;
  bool in_table = false, in_code = false, in_quote = false;
  std::vector<std::string>* row = nullptr;

  MarkdownBlock& current() { return blocks.back(); }

  void start(MarkdownBlock::Kind kind) {
    blocks.push_back({});
    current().kind = kind;
  }

  void add_text(std::string_view text) {
    if (in_table && row != nullptr && !row->empty()) {
      row->back() += text;
      return;
    }
    if (blocks.empty()) start(MarkdownBlock::Kind::paragraph);
    if (in_code) {
      current().code += text;
      return;
    }
    auto& runs = current().runs;
    const TextRun style{"", strong > 0, emphasis > 0, code > 0, link > 0};
    if (runs.empty() || runs.back().strong != style.strong || runs.back().emphasis != style.emphasis ||
        runs.back().code != style.code || runs.back().link != style.link) {
      runs.push_back(style);
    }
    runs.back().text += text;
  }
};

std::string attribute(const MD_ATTRIBUTE& a) { return a.text != nullptr ? std::string(a.text, a.size) : std::string(); }

int enter_block(MD_BLOCKTYPE type, void* detail, void* user) {
  auto& c = *static_cast<Collector*>(user);
  using Kind = MarkdownBlock::Kind;
  switch (type) {
    case MD_BLOCK_H:
      c.start(Kind::heading);
      c.current().level = static_cast<int>(static_cast<MD_BLOCK_H_DETAIL*>(detail)->level);
      break;
    case MD_BLOCK_P:
      if (c.in_table) break;
      // A list item's first paragraph is the item itself.
      if (!c.blocks.empty() && c.current().kind == Kind::list_item && c.current().runs.empty()) break;
      c.start(c.in_quote ? Kind::quote : Kind::paragraph);
      break;
    case MD_BLOCK_UL:
      c.lists.push_back({false, 1});
      break;
    case MD_BLOCK_OL:
      c.lists.push_back({true, static_cast<MD_BLOCK_OL_DETAIL*>(detail)->start});
      break;
    case MD_BLOCK_LI: {
      c.start(Kind::list_item);
      c.current().level = static_cast<int>(c.lists.size());
      if (!c.lists.empty() && c.lists.back().ordered) {
        c.current().bullet = std::to_string(c.lists.back().next++) + ".";
      } else {
        c.current().bullet = "•";
      }
      break;
    }
    case MD_BLOCK_CODE:
      c.start(Kind::code);
      c.current().language = attribute(static_cast<MD_BLOCK_CODE_DETAIL*>(detail)->lang);
      c.in_code = true;
      break;
    case MD_BLOCK_HR:
      c.start(Kind::rule);
      break;
    case MD_BLOCK_QUOTE:
      c.in_quote = true;
      break;
    case MD_BLOCK_TABLE:
      c.start(Kind::table);
      c.in_table = true;
      break;
    case MD_BLOCK_TR:
      c.current().rows.emplace_back();
      c.row = &c.current().rows.back();
      break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
      if (c.row != nullptr) c.row->emplace_back();
      break;
    default:
      break;  // the document, HTML blocks (our snippet markers), table sections
  }
  return 0;
}

int leave_block(MD_BLOCKTYPE type, void*, void* user) {
  auto& c = *static_cast<Collector*>(user);
  switch (type) {
    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
      if (!c.lists.empty()) c.lists.pop_back();
      break;
    case MD_BLOCK_CODE:
      c.in_code = false;
      while (!c.current().code.empty() && c.current().code.back() == '\n') c.current().code.pop_back();
      break;
    case MD_BLOCK_QUOTE:
      c.in_quote = false;
      break;
    case MD_BLOCK_TABLE:
      c.in_table = false;
      c.row = nullptr;
      break;
    default:
      break;
  }
  return 0;
}

int enter_span(MD_SPANTYPE type, void*, void* user) {
  auto& c = *static_cast<Collector*>(user);
  if (type == MD_SPAN_STRONG) ++c.strong;
  if (type == MD_SPAN_EM) ++c.emphasis;
  if (type == MD_SPAN_CODE) ++c.code;
  if (type == MD_SPAN_A) ++c.link;
  return 0;
}

int leave_span(MD_SPANTYPE type, void*, void* user) {
  auto& c = *static_cast<Collector*>(user);
  if (type == MD_SPAN_STRONG) --c.strong;
  if (type == MD_SPAN_EM) --c.emphasis;
  if (type == MD_SPAN_CODE) --c.code;
  if (type == MD_SPAN_A) --c.link;
  return 0;
}

int text(MD_TEXTTYPE type, const MD_CHAR* data, MD_SIZE size, void* user) {
  auto& c = *static_cast<Collector*>(user);
  switch (type) {
    case MD_TEXT_SOFTBR:
      c.add_text(" ");
      break;
    case MD_TEXT_BR:
      c.add_text("\n");
      break;
    case MD_TEXT_NULLCHAR:
      c.add_text("\xEF\xBF\xBD");
      break;
    case MD_TEXT_HTML:
      break;  // inline HTML is not drawn
    case MD_TEXT_ENTITY: {
      const std::string_view e(data, size);
      c.add_text(e == "&amp;" ? "&" : e == "&lt;" ? "<" : e == "&gt;" ? ">" : e == "&nbsp;" ? " " : e);
      break;
    }
    default:
      c.add_text(std::string_view(data, size));
  }
  return 0;
}

}  // namespace

std::vector<MarkdownBlock> parse_markdown(std::string_view source) {
  Collector collector;
  MD_PARSER parser{};
  parser.abi_version = 0;
  parser.flags = MD_DIALECT_GITHUB;
  parser.enter_block = enter_block;
  parser.leave_block = leave_block;
  parser.enter_span = enter_span;
  parser.leave_span = leave_span;
  parser.text = text;
  if (md_parse(source.data(), static_cast<MD_SIZE>(source.size()), &parser, &collector) != 0) {
    MarkdownBlock raw;
    raw.runs.push_back({std::string(source)});
    return {raw};
  }
  return collector.blocks;
}

std::vector<MarkdownBlock> load_markdown(const std::string& path) {
  const std::optional<std::string> text = read_text_file(path);
  if (!text) {
    MarkdownBlock missing;
    missing.runs.push_back({"The lesson text " + path + " could not be opened.", true});
    return {missing};
  }
  return parse_markdown(*text);
}

std::vector<int> hint_numbers(const std::vector<MarkdownBlock>& blocks) {
  std::vector<int> numbers(blocks.size(), 0);
  int current = 0, level = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const MarkdownBlock& b = blocks[i];
    if (b.kind == MarkdownBlock::Kind::heading) {
      std::string text;
      for (const TextRun& run : b.runs) text += run.text;
      int number = 0;
      if (text.starts_with("Hint ") && std::sscanf(text.c_str() + 5, "%d", &number) == 1 && number > 0) {
        current = number;
        level = b.level;
      } else if (current > 0 && b.level <= level) {
        current = 0;
      }
    }
    numbers[i] = current;
  }
  return numbers;
}

std::vector<MarkdownBlock> exercise_section(const std::vector<MarkdownBlock>& blocks) {
  std::vector<MarkdownBlock> section;
  bool inside = false;
  for (const MarkdownBlock& b : blocks) {
    if (b.kind == MarkdownBlock::Kind::heading && b.level <= 2) {
      std::string text;
      for (const TextRun& run : b.runs) text += run.text;
      inside = text.starts_with("Exercise");
    }
    if (inside) section.push_back(b);
  }
  return section;
}

}  // namespace gpulab::app
