#pragma once
// GPU Lab's plot widget (ImPlot is not available on Debian 12): log-log lines with a min-max
// band, dashed lines for recorded results, horizontal reference lines (the measured ceilings), and
// a tooltip with the numbers under the mouse. Drawn with ImGui's draw lists; the axis arithmetic
// lives in core/log_axis (tested without OpenGL).
#include <imgui.h>

#include <string>
#include <vector>

#include "core/log_axis.hpp"
#include "core/series.hpp"

namespace gpulab::app {

struct PlotSpec {
  std::string title;
  Unit x_unit = Unit::count, y_unit = Unit::milliseconds;
  std::string x_label = "n", y_label;
};

struct ReferenceLine {
  double y = 0;
  std::string label;  // "measured copy 4.2 TB/s"
};

// A colour per series index, the same in every plot and the legend.
ImU32 series_colour(std::size_t index, float alpha = 1.0f);

void draw_plot(const char* id, const PlotSpec& spec, const std::vector<PlotLine>& lines,
               const std::vector<ReferenceLine>& references, ImVec2 size);

// A ladder chart: one horizontal bar per series (its rate in `unit` at one size), slowest at the
// top, with vertical dashed reference lines (the library, the measured ceiling); a bar's label
// says how far it got towards the first reference.
void draw_ladder(const char* id, const std::string& title, const Ladder& ladder, Unit unit,
                 const std::vector<ReferenceLine>& references, ImVec2 size);

// Clickable legend entries for every series of a lesson: a click shows or hides it everywhere.
// At most max_height tall; more entries scroll.
void draw_legend(SeriesSet& series, const std::string& lesson, float max_height);

// A linear chart of points (x, y) from x = 0 to x_max and y = 0 to `top`, drawn as one line (a
// training's loss or accuracy as it goes); `x_label` at the right end ("epoch 300").
struct CurveAxes {
  double x_max = 1;
  std::string x_label;
};
void draw_curve(const char* id, const std::string& title, const std::vector<std::pair<double, double>>& points,
                const CurveAxes& axes, double top, ImU32 colour, ImVec2 size);

}  // namespace gpulab::app
