// Lesson 19's Visualize picture (online_softmax_view.hpp): a table a tile, then the output row
// after each tile beside the exact one.
#include "ui/online_softmax_view.hpp"

#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>

namespace gpulab::app {

namespace {

constexpr float kCell = 14;  // a key's cell in the scores' strip

// Dimmed text that wraps at the window's edge.
void note(const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s", text.c_str());
  ImGui::PopStyleColor();
}

// A weight in [0, 1] as a brightness of amber: how much of the final answer a key carries.
ImU32 weight_colour(double w) {
  const float t = std::sqrt(static_cast<float>(std::clamp(w, 0.0, 1.0)));  // (√: the middling weights show)
  return ImGui::GetColorU32(ImVec4(0.12f + 0.88f * t, 0.12f + 0.62f * t, 0.14f, 1.0f));
}

// A value of the output row: blue below 0, red above, white at 0, saturated at `scale`.
ImU32 value_colour(double v, double scale) {
  const float t = static_cast<float>(std::clamp(v / scale, -1.0, 1.0));
  return t >= 0 ? ImGui::GetColorU32(ImVec4(1.0f, 1.0f - 0.8f * t, 1.0f - 0.8f * t, 1.0f))
                : ImGui::GetColorU32(ImVec4(1.0f + 0.8f * t, 1.0f + 0.8f * t, 1.0f, 1.0f));
}

// The tile's 32 scores as cells coloured by their final weight e^(s − m_final); masked keys
// crossed out; the tile's maximum outlined. Hover: the key's score and weight.
void draw_scores(const OnlineSoftmaxTile& tile, float final_max, float final_sum) {
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const auto keys = static_cast<int>(tile.scores.size());
  ImGui::InvisibleButton("scores", {kCell * static_cast<float>(keys), kCell});
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  for (int j = 0; j < keys; ++j) {
    const float s = tile.scores[static_cast<std::size_t>(j)];
    const ImVec2 a(at.x + kCell * static_cast<float>(j), at.y), b(a.x + kCell - 1, a.y + kCell - 1);
    if (std::isinf(s)) {
      draw->AddRectFilled(a, b, ImGui::GetColorU32(ImVec4(0.25f, 0.25f, 0.27f, 1)));
      draw->AddLine(a, b, ImGui::GetColorU32(ImVec4(0.45f, 0.45f, 0.47f, 1)));
      continue;
    }
    draw->AddRectFilled(a, b, weight_colour(std::exp(static_cast<double>(s) - final_max)));
    if (s == tile.tile_max) draw->AddRect(a, b, ImGui::GetColorU32(ImVec4(0.3f, 0.9f, 1.0f, 1)), 0, 0, 2);
  }
  if (!hovered) return;
  const int j = static_cast<int>((ImGui::GetIO().MousePos.x - at.x) / kCell);
  if (j < 0 || j >= keys) return;
  const auto k = static_cast<std::size_t>(j);
  if (std::isinf(tile.scores[k])) {
    ImGui::SetTooltip("key %zu: masked or past the sequence's end (s = -inf, p = 0)", tile.first_key + k);
  } else {
    ImGui::SetTooltip(
        "key %zu\nscore s = q·k / sqrt(d) = %.5g\nweight in this tile p = e^(s - m) = %.5g (m = %.5g)\n"
        "its share of the answer, e^(s - m_final) / l_final = %.4g",
        tile.first_key + k, static_cast<double>(tile.scores[k]), static_cast<double>(tile.weights[k]),
        static_cast<double>(tile.running_max), std::exp(static_cast<double>(tile.scores[k] - final_max)) / final_sum);
  }
}

// The output row out / l after each tile, a row each, and the exact row under them.
void draw_outputs(const OnlineSoftmaxQuery& q) {
  const std::size_t d = q.exact.size();
  double scale = 1e-30;
  for (double v : q.exact) scale = std::max(scale, std::fabs(v));
  const float label_w = 120,
              cell = std::max(4.0f, (ImGui::GetContentRegionAvail().x - label_w) / static_cast<float>(d));
  const float row_h = 20;
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const std::size_t rows = q.tiles.size() + 1;
  ImGui::InvisibleButton("outputs", {label_w + cell * static_cast<float>(d), row_h * static_cast<float>(rows)});
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (std::size_t r = 0; r < rows; ++r) {
    const bool exact = r == q.tiles.size();
    const float y = at.y + row_h * static_cast<float>(r);
    const std::string label = exact ? "exact (float64)" : fmt::format("after keys to {}", q.tiles[r].last_key);
    draw->AddText({at.x, y + 1}, ImGui::GetColorU32(ImGuiCol_Text), label.c_str());
    for (std::size_t c = 0; c < d; ++c) {
      const double v = exact ? q.exact[c] : q.tiles[r].output[c] / q.tiles[r].running_sum;
      const ImVec2 a(at.x + label_w + cell * static_cast<float>(c), y + 1);
      const ImVec2 b(a.x + cell - 1, y + row_h - 1);
      draw->AddRectFilled(a, b, value_colour(v, scale));
      if (hovered && mouse.x >= a.x && mouse.x < b.x + 1 && mouse.y >= a.y && mouse.y < b.y + 1) {
        ImGui::SetTooltip("%s, column %zu: %.6g (exact %.6g)", label.c_str(), c, v, q.exact[c]);
      }
    }
  }
}

}  // namespace

void draw_online_softmax(const OnlineSoftmaxSteps& steps, int& query) {
  for (std::size_t i = 0; i < steps.queries.size(); ++i) {
    if (ImGui::RadioButton(fmt::format("query {}", steps.queries[i].query).c_str(), query == static_cast<int>(i)))
      query = static_cast<int>(i);
    ImGui::SameLine();
  }
  ImGui::NewLine();
  query = std::clamp(query, 0, static_cast<int>(steps.queries.size()) - 1);
  const OnlineSoftmaxQuery& q = steps.queries[static_cast<std::size_t>(query)];
  const float final_max = q.tiles.back().running_max;
  const float final_sum = q.tiles.back().running_sum;
  note(
      "Keys coloured by their final weight e^(s - m_final): bright keys carry the answer; outlined: the tile's "
      "maximum; crossed: masked or past the end. m only grows; when it does, e^(m_old - m) < 1 shrinks the old sum "
      "and output to the new scale.");
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("tiles", 8, flags)) {
    for (const char* h : {"keys", "scores s (recorded: the lanes' values for the maximum)", "tile max", "m",
                          "e^(m_old - m)", "tile sum p", "l", "|out / l - exact|"})
      ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (std::size_t t = 0; t < q.tiles.size(); ++t) {
      const OnlineSoftmaxTile& tile = q.tiles[t];
      const bool grew = t == 0 || tile.running_max > q.tiles[t - 1].running_max;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%zu-%zu", tile.first_key, tile.last_key);
      ImGui::TableNextColumn();
      ImGui::PushID(static_cast<int>(t));
      draw_scores(tile, final_max, final_sum);
      ImGui::PopID();
      ImGui::TableNextColumn();
      ImGui::Text("%.4g", tile.tile_max);
      ImGui::TableNextColumn();
      if (grew) {
        ImGui::TextColored({0.3f, 0.9f, 1.0f, 1}, "%.4g (grew)", tile.running_max);
      } else {
        ImGui::Text("%.4g", tile.running_max);
      }
      ImGui::TableNextColumn();
      ImGui::Text(t == 0 ? "%.4g (first)" : "%.4g", tile.correction);
      ImGui::TableNextColumn();
      ImGui::Text("%.4g", tile.tile_sum);
      ImGui::TableNextColumn();
      ImGui::Text("%.4g", tile.running_sum);
      ImGui::TableNextColumn();
      ImGui::Text("%.2e", tile.distance);
    }
    ImGui::EndTable();
  }
  ImGui::Spacing();
  ImGui::Text("The output row out / l after each tile (%zu columns; blue below 0, red above), then the exact one:",
              steps.head_dim);
  draw_outputs(q);
  note(fmt::format(
      "Recorded on the emulator: the scores and weights (the values the warp's lanes handed each other), the V tiles "
      "(shared memory at each barrier). Carried from them as the kernel carries them: m, e^(m_old - m), l and out. "
      "The recorded weights differ from e^(s - m) by at most {:.1e}; l at the end: {:.5g}.",
      q.weights_agree, final_sum));
}

}  // namespace gpulab::app
