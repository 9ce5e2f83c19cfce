// The plot widget.
#include "ui/plot.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace gpulab::app {

ImU32 series_colour(std::size_t index, float alpha) {
  // Distinguishable on a dark background, in an order where neighbours differ most.
  static const ImVec4 palette[] = {{0.35f, 0.70f, 1.00f, 1}, {1.00f, 0.60f, 0.20f, 1}, {0.40f, 0.85f, 0.45f, 1},
                                   {0.95f, 0.40f, 0.45f, 1}, {0.75f, 0.55f, 1.00f, 1}, {0.95f, 0.85f, 0.35f, 1},
                                   {0.30f, 0.85f, 0.85f, 1}, {1.00f, 0.55f, 0.80f, 1}, {0.70f, 0.70f, 0.70f, 1},
                                   {0.60f, 0.45f, 0.30f, 1}};
  ImVec4 c = palette[index % std::size(palette)];
  c.w = alpha;
  return ImGui::ColorConvertFloat4ToU32(c);
}

namespace {

void dashed_line(ImDrawList* draw, ImVec2 a, ImVec2 b, ImU32 colour, float thickness) {
  const float dx = b.x - a.x, dy = b.y - a.y;
  const float length = std::sqrt(dx * dx + dy * dy);
  const float dash = 6.0f, gap = 4.0f;
  for (float t = 0; t < length; t += dash + gap) {
    const float e = std::min(t + dash, length);
    draw->AddLine({a.x + dx * t / length, a.y + dy * t / length}, {a.x + dx * e / length, a.y + dy * e / length},
                  colour, thickness);
  }
}

struct Range {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  void add(double v) {
    if (v > 0 && std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
};

}  // namespace

void draw_plot(const char* id, const PlotSpec& spec, const std::vector<PlotLine>& lines,
               const std::vector<ReferenceLine>& references, ImVec2 size) {
  ImGui::PushID(id);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  if (size.x < 100) size.x = 100;
  if (size.y < 80) size.y = 80;
  ImGui::InvisibleButton("plot", size);
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float line_height = ImGui::GetTextLineHeight();
  const ImU32 text_colour = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 faint = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  const ImU32 grid = ImGui::GetColorU32(ImGuiCol_Border);

  draw->AddRectFilled(origin, {origin.x + size.x, origin.y + size.y}, ImGui::GetColorU32(ImGuiCol_FrameBg), 4.0f);
  draw->AddText({origin.x + 8, origin.y + 4}, text_colour, spec.title.c_str());

  Range xr, yr;
  for (const auto& line : lines) {
    for (const auto& p : line.points) {
      xr.add(p.x);
      yr.add(p.lo);
      yr.add(p.hi);
      yr.add(p.y);
    }
  }
  for (const auto& r : references) yr.add(r.y);
  const LogAxis x = LogAxis::fit(xr.lo, xr.hi, spec.x_unit);
  const LogAxis y = LogAxis::fit(yr.lo, yr.hi, spec.y_unit);

  // The frame: room for tick labels on the left and below.
  const float left = origin.x + ImGui::CalcTextSize("100 GFLOP/s").x + 14;
  const float right = origin.x + size.x - 12;
  const float top = origin.y + line_height + 10;
  const float bottom = origin.y + size.y - 2 * line_height - 8;
  auto px = [&](double v) { return static_cast<float>(left + x.position(v) * (right - left)); };
  auto py = [&](double v) { return static_cast<float>(bottom - y.position(v) * (bottom - top)); };

  draw->PushClipRect(origin, {origin.x + size.x, origin.y + size.y}, true);
  const int x_labels = static_cast<int>((right - left) / (ImGui::CalcTextSize("100 ms").x * 1.6f));
  const int y_labels = static_cast<int>((bottom - top) / (line_height * 1.8f));
  for (const Tick& t : x.ticks(x_labels)) {
    const float at = px(t.value);
    draw->AddLine({at, top}, {at, bottom}, t.major ? grid : (grid & 0x55FFFFFF));
    if (!t.label.empty()) {
      const ImVec2 w = ImGui::CalcTextSize(t.label.c_str());
      draw->AddText({at - w.x / 2, bottom + 3}, faint, t.label.c_str());
    }
  }
  for (const Tick& t : y.ticks(y_labels)) {
    const float at = py(t.value);
    draw->AddLine({left, at}, {right, at}, t.major ? grid : (grid & 0x55FFFFFF));
    if (!t.label.empty()) {
      const ImVec2 w = ImGui::CalcTextSize(t.label.c_str());
      draw->AddText({left - w.x - 6, at - line_height / 2}, faint, t.label.c_str());
    }
  }
  const std::string x_caption = spec.x_label + (spec.y_label.empty() ? "" : "   ·   y: " + spec.y_label);
  draw->AddText({left, bottom + line_height + 4}, faint, x_caption.c_str());
  draw->AddRect({left, top}, {right, bottom}, grid);

  for (const auto& r : references) {
    const float at = py(r.y);
    dashed_line(draw, {left, at}, {right, at}, IM_COL32(255, 255, 255, 150), 1.5f);
    const ImVec2 w = ImGui::CalcTextSize(r.label.c_str());
    draw->AddText({right - w.x - 4, at + 2}, IM_COL32(255, 255, 255, 190), r.label.c_str());
  }

  // Spread first (under the lines), then lines and markers.
  for (const auto& line : lines) {
    const ImU32 band = series_colour(line.series, 0.18f);
    for (std::size_t i = 0; i + 1 < line.points.size(); ++i) {
      const auto& a = line.points[i];
      const auto& b = line.points[i + 1];
      const ImVec2 quad[] = {{px(a.x), py(a.hi)}, {px(b.x), py(b.hi)}, {px(b.x), py(b.lo)}, {px(a.x), py(a.lo)}};
      draw->AddConvexPolyFilled(quad, 4, band);
    }
  }
  const PlotLine* hover_line = nullptr;
  const PlotPoint* hover_point = nullptr;
  float best = 10.0f * 10.0f;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (const auto& line : lines) {
    const ImU32 colour = series_colour(line.series);
    for (std::size_t i = 0; i < line.points.size(); ++i) {
      const ImVec2 p{px(line.points[i].x), py(line.points[i].y)};
      if (i + 1 < line.points.size()) {
        const ImVec2 q{px(line.points[i + 1].x), py(line.points[i + 1].y)};
        if (line.recorded) {
          dashed_line(draw, p, q, colour, 2.0f);
        } else {
          draw->AddLine(p, q, colour, 2.0f);
        }
      }
      if (line.recorded) {
        draw->AddCircle(p, 3.5f, colour, 12, 1.5f);
      } else {
        draw->AddCircleFilled(p, 3.5f, colour);
      }
      if (line.points[i].hi > line.points[i].lo) {
        draw->AddLine({p.x, py(line.points[i].lo)}, {p.x, py(line.points[i].hi)}, colour, 1.0f);
      }
      const float d = (p.x - mouse.x) * (p.x - mouse.x) + (p.y - mouse.y) * (p.y - mouse.y);
      if (hovered && d < best) best = d, hover_line = &line, hover_point = &line.points[i];
    }
  }
  if (lines.empty()) {
    const char* empty = "No measurements yet: press Run or Sweep.";
    const ImVec2 w = ImGui::CalcTextSize(empty);
    draw->AddText({(left + right - w.x) / 2, (top + bottom - w.y) / 2}, faint, empty);
  }
  draw->PopClipRect();

  if (hover_point != nullptr) {
    draw->AddCircle({px(hover_point->x), py(hover_point->y)}, 6.0f, text_colour, 16, 1.5f);
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(hover_line->label.c_str());
    ImGui::Text("%s = %s", spec.x_label.c_str(), format_value(hover_point->x, spec.x_unit).c_str());
    ImGui::Text("%s  (min %s, max %s)", format_value(hover_point->y, spec.y_unit).c_str(),
                format_value(hover_point->lo, spec.y_unit).c_str(), format_value(hover_point->hi, spec.y_unit).c_str());
    ImGui::EndTooltip();
  } else if (hovered && mouse.x >= left && mouse.x <= right && mouse.y >= top && mouse.y <= bottom) {
    ImGui::SetTooltip("%s = %s, %s", spec.x_label.c_str(),
                      format_value(x.value_at((mouse.x - left) / (right - left)), spec.x_unit).c_str(),
                      format_value(y.value_at((bottom - mouse.y) / (bottom - top)), spec.y_unit).c_str());
  }
  ImGui::PopID();
}

void draw_legend(SeriesSet& series, const std::string& lesson, float max_height) {
  const auto& all = series.series();
  // Many series (several recorded files) scroll in a box of at most max_height, so the plots keep their room.
  const auto count = std::count_if(all.begin(), all.end(), [&](const Series& s) {
    return std::any_of(s.points.begin(), s.points.end(),
                       [&](const Result& r) { return lesson.empty() || r.lesson == lesson; });
  });
  const float rows = static_cast<float>((count + 2) / 3);
  const float height = std::min(max_height, rows * ImGui::GetFrameHeightWithSpacing() + 4);
  ImGui::BeginChild("legend", ImVec2(0, std::max(height, ImGui::GetFrameHeightWithSpacing())), false);
  bool first = true;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const bool belongs = std::any_of(all[i].points.begin(), all[i].points.end(),
                                     [&](const Result& r) { return lesson.empty() || r.lesson == lesson; });
    if (!belongs) continue;
    const std::string text = all[i].label;
    const float width = ImGui::GetFrameHeight() + ImGui::CalcTextSize(text.c_str()).x + 20;
    const float right_edge = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (!first && ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + width < right_edge) ImGui::SameLine();
    first = false;
    ImGui::PushID(static_cast<int>(i));
    ImGui::PushStyleColor(ImGuiCol_CheckMark, series_colour(i));
    ImGui::PushStyleColor(ImGuiCol_Text, all[i].visible ? series_colour(i) : ImGui::GetColorU32(ImGuiCol_TextDisabled));
    bool visible = all[i].visible;
    if (ImGui::Checkbox(text.c_str(), &visible)) series.set_visible(i, visible);
    ImGui::PopStyleColor(2);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Show or hide this series in every plot");
    ImGui::PopID();
  }
  ImGui::EndChild();
}

void draw_ladder(const char* id, const std::string& title, const Ladder& ladder, Unit unit,
                 const std::vector<ReferenceLine>& references, ImVec2 size) {
  ImGui::PushID(id);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  if (size.x < 200) size.x = 200;
  if (size.y < 80) size.y = 80;
  ImGui::InvisibleButton("ladder", size);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float line_height = ImGui::GetTextLineHeight();
  const ImU32 text_colour = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 faint = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  draw->AddRectFilled(origin, {origin.x + size.x, origin.y + size.y}, ImGui::GetColorU32(ImGuiCol_FrameBg), 4.0f);
  draw->AddText({origin.x + 8, origin.y + 4}, text_colour, title.c_str());
  if (ladder.bars.empty()) {
    draw->AddText({origin.x + 8, origin.y + 8 + line_height}, faint,
                  "Run at least two variants at one size (or open a recorded file) to see the ladder.");
    ImGui::PopID();
    return;
  }
  float label_width = 0;
  for (const auto& bar : ladder.bars) label_width = std::max(label_width, ImGui::CalcTextSize(bar.label.c_str()).x);
  label_width = std::min(label_width, size.x * 0.4f);
  double top = 0;
  for (const auto& bar : ladder.bars) top = std::max(top, bar.value);
  for (const auto& r : references) top = std::max(top, r.y);
  top *= 1.05;
  const float left = origin.x + 12 + label_width, right = origin.x + size.x - 12;
  const float first_row = origin.y + 10 + 2 * line_height, bottom = origin.y + size.y - 8 - line_height;
  const float row = std::max(4.0f, (bottom - first_row) / static_cast<float>(ladder.bars.size()));
  auto x_of = [&](double v) { return left + static_cast<float>(v / top) * (right - left); };
  const double reference = references.empty() ? 0 : references.front().y;

  for (std::size_t i = 0; i < ladder.bars.size(); ++i) {
    const LadderBar& bar = ladder.bars[i];
    const float y0 = first_row + row * static_cast<float>(i), y1 = y0 + row * 0.8f;
    ImGui::PushClipRect(origin, {left - 6, origin.y + size.y}, true);
    draw->AddText({origin.x + 8, y0 + (row * 0.8f - line_height) / 2}, series_colour(bar.series), bar.label.c_str());
    ImGui::PopClipRect();
    draw->AddRectFilled({left, y0}, {x_of(bar.value), y1}, series_colour(bar.series, 0.85f), 2.0f);
    std::string value = format_value(bar.value, unit);
    if (reference > 0)
      value += "  (" + std::to_string(static_cast<int>(std::lround(100 * bar.value / reference))) + " %)";
    const float text_x = std::min(x_of(bar.value) + 6, right - ImGui::CalcTextSize(value.c_str()).x);
    draw->AddText({text_x, y0 + (row * 0.8f - line_height) / 2}, text_colour, value.c_str());
  }
  const float label_y = origin.y + 6 + line_height;
  for (std::size_t i = 0; i < references.size(); ++i) {
    const float x = x_of(references[i].y);
    const ImU32 colour = i == 0 ? ImGui::GetColorU32(ImVec4{1, 1, 1, 0.8f}) : faint;
    dashed_line(draw, {x, first_row - 4}, {x, bottom}, colour, 1.5f);
    const float w = ImGui::CalcTextSize(references[i].label.c_str()).x;
    draw->AddText({std::clamp(x - w / 2, left, std::max(left, right - w)), i == 0 ? bottom + 2 : label_y}, colour,
                  references[i].label.c_str());
  }
  ImGui::PopID();
}

void draw_curve(const char* id, const std::string& title, const std::vector<std::pair<double, double>>& points,
                const CurveAxes& axes, double top, ImU32 colour, ImVec2 size) {
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, size);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float left = origin.x + 44, right = origin.x + size.x - 8, top_y = origin.y + 20,
              bottom = origin.y + size.y - 18;
  draw->AddRectFilled(origin, {origin.x + size.x, origin.y + size.y}, IM_COL32(30, 30, 36, 255));
  draw->AddText({origin.x + 6, origin.y + 2}, IM_COL32(230, 230, 235, 255), title.c_str());
  for (int k = 0; k <= 4; ++k) {  // gridlines at quarters
    const float y = bottom - (bottom - top_y) * static_cast<float>(k) / 4;
    draw->AddLine({left, y}, {right, y}, IM_COL32(70, 70, 80, 255));
    draw->AddText({origin.x + 4, y - 7}, IM_COL32(170, 170, 180, 255), fmt::format("{:.2g}", top * k / 4).c_str());
  }
  draw->AddText({right - ImGui::CalcTextSize(axes.x_label.c_str()).x, bottom + 2}, IM_COL32(170, 170, 180, 255),
                axes.x_label.c_str());
  if (points.size() < 2 || top <= 0 || axes.x_max <= 0) return;
  std::vector<ImVec2> line;
  line.reserve(points.size());
  for (const auto& [x, y] : points) {
    line.push_back({left + (right - left) * static_cast<float>(std::clamp(x / axes.x_max, 0.0, 1.0)),
                    bottom - (bottom - top_y) * static_cast<float>(std::clamp(y / top, 0.0, 1.0))});
  }
  draw->AddPolyline(line.data(), static_cast<int>(line.size()), colour, 0, 2.0f);
}

}  // namespace gpulab::app
