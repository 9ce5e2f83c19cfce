// Drawing a thread map.
#include "ui/thread_map_view.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "ui/memory_pictures.hpp"
#include "ui/plot.hpp"

namespace gpulab::app {

void draw_thread_map(const ThreadMap& map, ImVec2 size, const WarpSectors* sectors) {
  if (map.threads.empty()) return;
  // Element space: an array wraps at 32 elements a line (a warp a line when blocks hold whole
  // warps); a matrix keeps its rows and columns. Threads past the data extend it.
  const bool two_d = map.rows > 1 || map.grid_y > 1 || map.block_y > 1;
  std::int64_t rows = 1, cols = 1;
  for (const ThreadCell& t : map.threads) rows = std::max(rows, t.row + 1), cols = std::max(cols, t.col + 1);
  const std::int64_t wrap = 32;
  auto place = [&](const ThreadCell& t) -> std::pair<std::int64_t, std::int64_t> {
    return two_d ? std::pair{t.row, t.col} : std::pair{t.col / wrap, t.col % wrap};
  };
  const std::int64_t grid_rows = two_d ? rows : (cols + wrap - 1) / wrap;
  const std::int64_t grid_cols = two_d ? cols : std::min(cols, wrap);
  const float cell =
      std::clamp(std::min(size.x / static_cast<float>(grid_cols), size.y / static_cast<float>(grid_rows)), 4.0f, 28.0f);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const ImVec2 extent{cell * static_cast<float>(grid_cols), cell * static_cast<float>(grid_rows)};
  ImGui::InvisibleButton("thread_map", {std::max(extent.x, 1.0f), std::max(extent.y, 1.0f)});
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ThreadCell* under_mouse = nullptr;
  const int blocks_per_row = std::max(1, map.grid_x);
  // The sectors per request of the warp that handled a cell, where counted.
  const auto sectors_of = [&](const ThreadCell& t) -> std::optional<double> {
    if (sectors == nullptr) return std::nullopt;
    const auto w = sectors->find(
        {static_cast<std::uint64_t>(t.block_y * blocks_per_row + t.block_x), static_cast<unsigned>(t.warp)});
    return w != sectors->end() ? std::optional<double>(w->second) : std::nullopt;
  };
  for (const ThreadCell& t : map.threads) {
    const auto [r, c] = place(t);
    const ImVec2 a{origin.x + static_cast<float>(c) * cell, origin.y + static_cast<float>(r) * cell};
    const ImVec2 b{a.x + cell - 1, a.y + cell - 1};
    // Colour by warp; neighbouring blocks alternate in brightness so their edges show.
    const int block = t.block_y * blocks_per_row + t.block_x;
    const float alpha = block % 2 == 0 ? 0.95f : 0.6f;
    if (t.inside() && sectors != nullptr) {
      const std::optional<double> warp_sectors = sectors_of(t);
      const ImU32 colour = warp_sectors ? sectors_colour(*warp_sectors) : IM_COL32(90, 90, 90, 255);
      draw->AddRectFilled(a, b, (colour & 0x00FFFFFFu) | (static_cast<ImU32>(alpha * 255) << IM_COL32_A_SHIFT));
    } else if (t.inside()) {
      draw->AddRectFilled(a, b, series_colour(static_cast<std::size_t>(t.warp), alpha));
    } else {
      draw->AddRectFilled(a, b, IM_COL32(60, 60, 66, 255));
      draw->AddLine(a, b, IM_COL32(230, 80, 80, 255), 1.5f);
      draw->AddLine({a.x, b.y}, {b.x, a.y}, IM_COL32(230, 80, 80, 255), 1.5f);
    }
    if (t.thread_x == 0 && t.thread_y == 0 && cell >= 10) {  // each block's first thread carries its number
      const std::string label =
          two_d ? std::to_string(t.block_x) + "," + std::to_string(t.block_y) : std::to_string(block);
      draw->AddText({a.x + 1, a.y}, IM_COL32(0, 0, 0, 255), label.c_str());
    }
    if (hovered && mouse.x >= a.x && mouse.x < b.x + 1 && mouse.y >= a.y && mouse.y < b.y + 1) under_mouse = &t;
  }
  if (two_d) {  // the matrix's edge: the bounds guard's line
    draw->AddRect(origin,
                  {origin.x + cell * static_cast<float>(map.cols), origin.y + cell * static_cast<float>(map.rows)},
                  IM_COL32(255, 255, 255, 220), 0, 0, 2.0f);
  }
  if (under_mouse != nullptr) {
    const ThreadCell& t = *under_mouse;
    ImGui::BeginTooltip();
    if (two_d) {
      ImGui::Text("blockIdx = (%d, %d), threadIdx = (%d, %d)", t.block_x, t.block_y, t.thread_x, t.thread_y);
    } else {
      ImGui::Text("blockIdx.x = %d, threadIdx.x = %d", t.block_x, t.thread_x);
    }
    ImGui::Text("warp %d of its block, lane %d", t.warp, t.lane);
    if (const std::optional<double> s = sectors_of(t)) {
      ImGui::Text("its warp's global requests: %.2f sectors each (4 is coalesced)", *s);
    }
    if (!t.inside()) {
      ImGui::TextColored({1, 0.4f, 0.4f, 1}, "outside the data: stopped by the bounds guard");
    } else if (two_d) {
      ImGui::Text("element (row %lld, col %lld)", static_cast<long long>(t.row), static_cast<long long>(t.col));
    } else {
      ImGui::Text("element %lld", static_cast<long long>(t.col));
    }
    ImGui::EndTooltip();
  }
}

}  // namespace gpulab::app
