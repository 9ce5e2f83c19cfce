// Drawing a timeline with ImGui's draw list.
#include "ui/timeline_view.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace gpulab::app {

namespace {

ImU32 colour_of(const std::string& engine) {
  if (engine == "copy in") return IM_COL32(86, 156, 230, 255);
  if (engine == "kernel") return IM_COL32(110, 200, 110, 255);
  return IM_COL32(236, 160, 70, 255);  // copy out
}

}  // namespace

void draw_timeline(const Timeline& t, ImVec2 size) {
  const std::vector<TimelineLane> lanes = timeline_lanes(t);
  const float font = ImGui::GetFontSize();
  const float label_width = 9.0f * font, lane_height = 1.6f * font, gap = 0.35f * font;
  const float axis_height = 1.6f * font;
  const float width = std::max(size.x - label_width - font, 100.0f);
  const double length = std::max({t.serial_ms(), t.overlapped_ms(), 1e-6});
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float height = static_cast<float>(lanes.size()) * (lane_height + gap) + axis_height;
  ImGui::InvisibleButton("timeline", {label_width + width, height});
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const float x0 = origin.x + label_width;
  auto x_of = [&](double ms) { return x0 + static_cast<float>(ms / length) * width; };
  const TimelineSpan* under_mouse = nullptr;
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const float y = origin.y + static_cast<float>(i) * (lane_height + gap);
    draw->AddText({origin.x, y + (lane_height - font) / 2}, ImGui::GetColorU32(ImGuiCol_Text), lanes[i].label.c_str());
    draw->AddRectFilled({x0, y}, {x0 + width, y + lane_height}, IM_COL32(40, 40, 46, 255));
    for (const TimelineSpan& s : t.spans) {
      if (!lanes[i].holds(s)) continue;
      const ImVec2 a{x_of(s.start_ms), y + 1},
          b{std::max(x_of(s.end_ms), x_of(s.start_ms) + 1.5f), y + lane_height - 1};
      draw->AddRectFilled(a, b, colour_of(s.engine));
      draw->AddRect(a, b, IM_COL32(20, 20, 24, 255));
      const std::string chunk = std::to_string(s.chunk);
      if (s.stream >= 0 && b.x - a.x > ImGui::CalcTextSize(chunk.c_str()).x + 4) {
        draw->AddText({a.x + 2, a.y + (lane_height - font) / 2}, IM_COL32(0, 0, 0, 255), chunk.c_str());
      }
      if (hovered && mouse.x >= a.x && mouse.x <= b.x && mouse.y >= a.y && mouse.y <= b.y) under_mouse = &s;
    }
  }
  // The time axis: about 8 ticks at round values.
  const float axis_y = origin.y + static_cast<float>(lanes.size()) * (lane_height + gap);
  const double raw = length / 8, magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double step = raw / magnitude < 2 ? 2 * magnitude : raw / magnitude < 5 ? 5 * magnitude : 10 * magnitude;
  for (double ms = 0; ms <= length + 1e-9; ms += step) {
    draw->AddLine({x_of(ms), axis_y}, {x_of(ms), axis_y + 4}, ImGui::GetColorU32(ImGuiCol_Text));
    draw->AddText({x_of(ms) + 2, axis_y + 2}, ImGui::GetColorU32(ImGuiCol_TextDisabled),
                  fmt::format("{:g} ms", ms).c_str());
  }
  if (under_mouse != nullptr) {
    const TimelineSpan& s = *under_mouse;
    ImGui::SetTooltip(
        "%s", s.stream < 0 ? fmt::format("serial run: {}, {:.3f} – {:.3f} ms", s.engine, s.start_ms, s.end_ms).c_str()
                           : fmt::format("stream {}, chunk {}: {}, {:.3f} – {:.3f} ms ({:.1f} µs)", s.stream, s.chunk,
                                         s.engine, s.start_ms, s.end_ms, (s.end_ms - s.start_ms) * 1000)
                                 .c_str());
  }
}

}  // namespace gpulab::app
