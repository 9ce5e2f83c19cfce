// Drawing markdown blocks word by word, so that runs of different fonts wrap together.
#include "ui/markdown_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <sstream>
#include <string>

namespace gpulab::app {

namespace {

ImFont* font_of(const TextRun& run, const Fonts& fonts) {
  if (run.code) return fonts.mono;
  if (run.strong) return fonts.bold;
  if (run.emphasis) return fonts.italic;
  return fonts.regular;
}

// Lays runs out left to right, breaking at spaces when the next word does not fit.
void draw_runs(const std::vector<TextRun>& runs, const Fonts& fonts, float indent, ImFont* override_font = nullptr) {
  const float left = ImGui::GetCursorPosX() + indent;
  const float right = ImGui::GetContentRegionMax().x;
  float x = left;
  bool line_started = false;
  ImGui::SetCursorPosX(left);
  for (const TextRun& run : runs) {
    ImFont* font = override_font != nullptr ? override_font : font_of(run, fonts);
    ImGui::PushFont(font);
    const ImU32 colour = run.code   ? IM_COL32(255, 200, 140, 255)
                         : run.link ? IM_COL32(120, 180, 255, 255)
                                    : ImGui::GetColorU32(ImGuiCol_Text);
    std::size_t start = 0;
    while (start < run.text.size()) {
      if (run.text[start] == '\n') {
        x = right + 1;  // a hard break
        ++start;
        continue;
      }
      std::size_t end = run.text.find(' ', start);
      end = end == std::string::npos ? run.text.size() : end + 1;
      const std::string word = run.text.substr(start, end - start);
      const float width = ImGui::CalcTextSize(word.c_str()).x;
      if (line_started && x + width > right && x > left) {
        ImGui::SetCursorPosX(left);  // the previous word already ended its line
        x = left;
      } else if (line_started) {
        ImGui::SameLine(0, 0);
      }
      ImGui::PushStyleColor(ImGuiCol_Text, colour);
      ImGui::TextUnformatted(word.c_str());
      ImGui::PopStyleColor();
      x += width;
      line_started = true;
      start = end;
    }
    ImGui::PopFont();
  }
  if (!line_started) ImGui::NewLine();
}

}  // namespace

void draw_code(const std::string& code, const Fonts& fonts, bool line_numbers) {
  ImGui::PushFont(fonts.mono);
  std::istringstream lines(code);
  std::string line;
  int number = 1;
  while (std::getline(lines, line)) {
    if (line_numbers) {
      ImGui::TextDisabled("%4d", number++);
      ImGui::SameLine();
    }
    ImGui::TextUnformatted(line.c_str());
  }
  ImGui::PopFont();
}

void draw_markdown(const std::vector<MarkdownBlock>& blocks, const Fonts& fonts, int* hints_shown) {
  using Kind = MarkdownBlock::Kind;
  int table_id = 0;
  const std::vector<int> hints = hints_shown != nullptr ? hint_numbers(blocks) : std::vector<int>(blocks.size(), 0);
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const MarkdownBlock& block = blocks[i];
    if (hints[i] > 0 && hints[i] > *hints_shown) {
      const bool next_heading = block.kind == Kind::heading && hints[i] == *hints_shown + 1;
      if (next_heading && ImGui::Button(("Show hint " + std::to_string(hints[i])).c_str())) ++*hints_shown;
      continue;
    }
    switch (block.kind) {
      case Kind::heading: {
        ImGui::Spacing();
        ImFont* font = fonts.heading[std::min(block.level, 3) - 1];
        draw_runs(block.runs, fonts, 0, font);
        if (block.level <= 2) ImGui::Separator();
        break;
      }
      case Kind::paragraph:
        draw_runs(block.runs, fonts, 0);
        ImGui::Spacing();
        break;
      case Kind::quote:
        draw_runs(block.runs, fonts, 16, fonts.italic);
        ImGui::Spacing();
        break;
      case Kind::list_item: {
        const float indent = 18.0f * static_cast<float>(block.level);
        ImGui::SetCursorPosX(ImGui::GetCursorPosX() + indent - 14);
        ImGui::TextUnformatted(block.bullet.c_str());
        ImGui::SameLine();
        draw_runs(block.runs, fonts, 0);
        break;
      }
      case Kind::code: {
        ImGui::PushStyleColor(ImGuiCol_ChildBg, IM_COL32(20, 22, 28, 255));
        const int lines = 1 + static_cast<int>(std::count(block.code.begin(), block.code.end(), '\n'));
        ImGui::PushFont(fonts.mono);
        const float height = static_cast<float>(lines) * ImGui::GetTextLineHeightWithSpacing() + 12;
        ImGui::PopFont();
        ImGui::BeginChild(ImGui::GetID(&block), {0, height}, true, ImGuiWindowFlags_HorizontalScrollbar);
        draw_code(block.code, fonts, false);
        ImGui::EndChild();
        ImGui::PopStyleColor();
        ImGui::Spacing();
        break;
      }
      case Kind::table: {
        if (block.rows.empty() || block.rows[0].empty()) break;
        const int columns = static_cast<int>(block.rows[0].size());
        ImGui::PushID(table_id++);
        if (ImGui::BeginTable("table", columns,
                              ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
          for (std::size_t r = 0; r < block.rows.size(); ++r) {
            ImGui::TableNextRow();
            for (int c = 0; c < columns; ++c) {
              ImGui::TableSetColumnIndex(c);
              const auto& row = block.rows[r];
              const std::string cell = static_cast<std::size_t>(c) < row.size() ? row[static_cast<std::size_t>(c)] : "";
              if (r == 0) ImGui::PushFont(fonts.bold);
              ImGui::TextWrapped("%s", cell.c_str());
              if (r == 0) ImGui::PopFont();
            }
          }
          ImGui::EndTable();
        }
        ImGui::PopID();
        ImGui::Spacing();
        break;
      }
      case Kind::rule:
        ImGui::Separator();
        break;
    }
  }
}

}  // namespace gpulab::app
