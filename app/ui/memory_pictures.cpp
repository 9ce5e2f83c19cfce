// Drawing one warp's request and the roofline (memory_pictures.hpp).
#include "ui/memory_pictures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/log_axis.hpp"
#include "ui/plot.hpp"

namespace gpulab::app {

namespace {

constexpr ImU32 kGood = IM_COL32(90, 200, 110, 255);
constexpr ImU32 kBad = IM_COL32(235, 80, 80, 255);
constexpr ImU32 kIdle = IM_COL32(70, 70, 78, 255);

void box(ImDrawList* draw, ImVec2 a, ImVec2 b, ImU32 fill, const std::string& label) {
  draw->AddRectFilled(a, b, fill, 2.0f);
  const ImVec2 text = ImGui::CalcTextSize(label.c_str());
  draw->AddText({(a.x + b.x - text.x) / 2, (a.y + b.y - text.y) / 2}, IM_COL32(0, 0, 0, 255), label.c_str());
}

}  // namespace

ImU32 sectors_colour(double sectors_per_request) {
  // 4 or fewer: green; 32: red; in between along log2.
  const double t = std::clamp((std::log2(std::max(sectors_per_request, 1.0)) - 2.0) / 3.0, 0.0, 1.0);
  const auto mix = [t](int a, int b) { return static_cast<int>(a + (b - a) * t); };
  return IM_COL32(mix(90, 235), mix(200, 80), mix(110, 80), 255);
}

void draw_warp_request(const emulated::LineTraffic& line, ImVec2 size) {
  const emulated::WarpRequest& r = line.worst;
  const bool shared = emulated::is_shared(line.kind);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float width = std::max(size.x, 640.0f);
  const float cell = width / 32.0f;
  const float lane_y = origin.y + ImGui::GetTextLineHeight() + 4;
  const float target_y = lane_y + cell + 90;
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  draw->AddText({origin.x, origin.y}, text, "lanes of the warp (threadIdx.x % 32)");

  // What each lane touches: banks (4-byte words) or sectors (32 bytes), relative to a 128-byte line.
  // Shared memory serves 8-byte accesses 16 lanes at a time and 16-byte ones 8 at a time (a phase):
  // a bank conflicts when one phase needs several of its words.
  const int lanes_per_phase =
      static_cast<int>(emulated::lanes_per_shared_phase(static_cast<unsigned>(r.bytes_per_lane)));
  std::map<std::pair<int, std::int64_t>, std::set<std::int64_t>> words_of;  // (phase, bank) -> distinct words
  std::map<std::int64_t, std::size_t> most_words;                           // bank -> the most in one phase
  std::vector<std::int64_t> sectors;
  for (int lane = 0; lane < 32; ++lane) {
    const std::int64_t o = r.offset[static_cast<std::size_t>(lane)];
    if (o < 0) continue;
    for (std::int64_t b = o; b < o + r.bytes_per_lane; b += 4) {
      auto& words = words_of[{lane / lanes_per_phase, b / 4 % 32}];
      words.insert(b / 4);
      most_words[b / 4 % 32] = std::max(most_words[b / 4 % 32], words.size());
    }
    for (std::int64_t s = o / 32; s <= (o + r.bytes_per_lane - 1) / 32; ++s) sectors.push_back(s);
  }
  std::sort(sectors.begin(), sectors.end());
  sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
  // Sectors are drawn in order, up to 32 of them.
  const auto sector_slot = [&](std::int64_t s) {
    return static_cast<float>(std::lower_bound(sectors.begin(), sectors.end(), s) - sectors.begin());
  };

  for (int lane = 0; lane < 32; ++lane) {
    const std::int64_t o = r.offset[static_cast<std::size_t>(lane)];
    const ImVec2 a{origin.x + static_cast<float>(lane) * cell, lane_y};
    box(draw, a, {a.x + cell - 2, a.y + cell - 2}, o < 0 ? kIdle : IM_COL32(120, 170, 240, 255), std::to_string(lane));
    if (o < 0) continue;
    const ImVec2 from{a.x + cell / 2 - 1, a.y + cell - 2};
    if (shared) {
      for (std::int64_t b = o; b < o + r.bytes_per_lane; b += 4) {
        const std::int64_t bank = b / 4 % 32;
        const bool conflict = words_of[{lane / lanes_per_phase, bank}].size() > 1;
        draw->AddLine(from, {origin.x + (static_cast<float>(bank) + 0.5f) * cell - 1, target_y},
                      conflict ? kBad : IM_COL32(200, 200, 200, 160), conflict ? 2.0f : 1.0f);
      }
    } else {
      const float slot = sector_slot(o / 32);
      if (slot < 32) {
        draw->AddLine(from, {origin.x + (slot + 0.5f) * cell - 1, target_y}, IM_COL32(200, 200, 200, 160), 1.0f);
      }
    }
  }
  if (shared) {
    for (int bank = 0; bank < 32; ++bank) {
      const std::size_t words = most_words.count(bank) ? most_words[bank] : 0;
      const ImVec2 a{origin.x + static_cast<float>(bank) * cell, target_y};
      box(draw, a, {a.x + cell - 2, a.y + cell - 2},
          words == 0   ? kIdle
          : words == 1 ? kGood
                       : kBad,
          words > 1 ? fmt::format("×{}", words) : std::to_string(bank));
    }
    draw->AddText({origin.x, target_y + cell + 2}, text,
                  lanes_per_phase == 32
                      ? "the 32 banks (4-byte words, bank = word % 32): red, a bank that must deliver several words — "
                        "one pass (wavefront) each"
                      : fmt::format("the 32 banks (4-byte words, bank = word % 32), served {} lanes at a time for "
                                    "{}-byte accesses: red, a bank that must deliver several words to one phase",
                                    lanes_per_phase, r.bytes_per_lane)
                            .c_str());
  } else {
    for (std::size_t i = 0; i < sectors.size() && i < 32; ++i) {
      const ImVec2 a{origin.x + static_cast<float>(i) * cell, target_y};
      box(draw, a, {a.x + cell - 2, a.y + cell - 2}, sectors_colour(static_cast<double>(sectors.size())),
          fmt::format("{}", sectors[i] * 32));
    }
    draw->AddText({origin.x, target_y + cell + 2}, text,
                  "the 32-byte sectors the request touches, by their offset in bytes (fewer is better: 4 carry "
                  "32 consecutive floats)");
  }
  ImGui::Dummy({width, target_y + cell + ImGui::GetTextLineHeight() + 8 - origin.y});
}

void draw_roofline(const std::vector<RooflinePoint>& points, const Ceilings& ceilings, ImVec2 size) {
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  size.x = std::max(size.x, 300.0f);
  size.y = std::max(size.y, 220.0f);
  ImGui::InvisibleButton("roofline", size);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 faint = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  draw->AddRectFilled(origin, {origin.x + size.x, origin.y + size.y}, ImGui::GetColorU32(ImGuiCol_FrameBg), 4.0f);
  const double ridge = ceilings.copy_gbps > 0 ? ceilings.fp32_gflops / ceilings.copy_gbps : 10;
  double x_lo = ridge / 10, x_hi = ridge * 10, y_lo = ceilings.fp32_gflops / 100, y_hi = ceilings.fp32_gflops * 2;
  for (const RooflinePoint& p : points) {
    x_lo = std::min(x_lo, p.intensity), x_hi = std::max(x_hi, p.intensity);
    y_lo = std::min(y_lo, p.predicted_gflops);
    if (p.measured_gflops) y_lo = std::min(y_lo, *p.measured_gflops), y_hi = std::max(y_hi, *p.measured_gflops);
  }
  const LogAxis x = LogAxis::fit(x_lo, x_hi, Unit::ratio), y = LogAxis::fit(y_lo, y_hi, Unit::gflops);
  const float left = origin.x + 70, right = origin.x + size.x - 12, top = origin.y + 26,
              bottom = origin.y + size.y - 30;
  const auto at = [&](double xv, double yv) {
    return ImVec2{left + static_cast<float>(x.position(xv)) * (right - left),
                  bottom - static_cast<float>(y.position(yv)) * (bottom - top)};
  };
  draw->AddText(
      {origin.x + 8, origin.y + 4}, text,
      fmt::format("Roofline ({}): GFLOP/s against FLOPs per byte of global memory sectors", ceilings.source).c_str());
  for (const Tick& t : x.ticks(8)) {
    const ImVec2 p = at(t.value, y.lo());
    draw->AddLine({p.x, top}, {p.x, bottom}, t.major ? IM_COL32(255, 255, 255, 30) : IM_COL32(255, 255, 255, 12));
    if (t.major) draw->AddText({p.x - 8, bottom + 4}, faint, fmt::format("{:g}", t.value).c_str());
  }
  for (const Tick& t : y.ticks(8)) {
    const ImVec2 p = at(x.lo(), t.value);
    draw->AddLine({left, p.y}, {right, p.y}, t.major ? IM_COL32(255, 255, 255, 30) : IM_COL32(255, 255, 255, 12));
    if (t.major) draw->AddText({origin.x + 6, p.y - 7}, faint, t.label.c_str());
  }
  // The roofs: memory (copy bandwidth × intensity) up to the ridge, then the FP32 peak.
  const ImU32 roof = IM_COL32(240, 240, 240, 200);
  draw->AddLine(at(x.lo(), ceilings.copy_gbps * x.lo()), at(ridge, ceilings.fp32_gflops), roof, 2.0f);
  draw->AddLine(at(ridge, ceilings.fp32_gflops), at(x.hi(), ceilings.fp32_gflops), roof, 2.0f);
  draw->AddText({at(ridge, ceilings.fp32_gflops).x + 6, at(ridge, ceilings.fp32_gflops).y - 18}, faint,
                fmt::format("FP32 peak {:.0f} GFLOP/s", ceilings.fp32_gflops).c_str());
  {
    const ImVec2 p = at(x.lo() * 1.5, ceilings.copy_gbps * x.lo() * 1.5);
    draw->AddText({p.x + 4, p.y - 20}, faint, fmt::format("copy {:.0f} GB/s", ceilings.copy_gbps).c_str());
  }
  draw->PushClipRect({left - 4, top - 4}, {right + 4, bottom + 4}, true);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const RooflinePoint& p = points[i];
    const ImU32 colour = series_colour(i);
    const ImVec2 predicted = at(p.intensity, p.predicted_gflops);
    draw->AddCircle(predicted, 6, colour, 16, 2.0f);
    if (p.measured_gflops) {
      const ImVec2 measured = at(p.intensity, *p.measured_gflops);
      draw->AddLine(predicted, measured, colour, 1.0f);
      draw->AddCircleFilled(measured, 5, colour);
    }
    draw->AddText({predicted.x + 8, predicted.y - 8}, colour, p.variant.c_str());
  }
  draw->PopClipRect();
  draw->AddText({left, bottom + 14}, faint, "hollow: predicted from the emulator's bytes; filled: measured");
}

}  // namespace gpulab::app
