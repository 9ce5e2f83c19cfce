// Drawing an image classifier's training: controls, curves, the test images with the network's
// picks, the first layer's filters.
#include "ui/image_training_view.hpp"

#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "ui/plot.hpp"

namespace gpulab::app {

namespace {

constexpr const char* kBackends[] = {"CPU", "GPU", "emulated"};
constexpr Backend kBackendValues[] = {Backend::cpu, Backend::gpu, Backend::emulated};

// A picture of channels × side × side floats (three channels as RGB, else grey), scaled from its
// own range to 0–255, `scale` screen pixels a value.
void draw_picture(const float* values, int channels, int side, float scale) {
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const std::size_t plane = static_cast<std::size_t>(side) * side;
  const auto [lo, hi] = std::minmax_element(values, values + plane * channels);
  const float range = *hi > *lo ? *hi - *lo : 1.0f;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  for (int y = 0; y < side; ++y) {
    for (int x = 0; x < side; ++x) {
      float rgb[3];
      for (int c = 0; c < 3; ++c) {
        const int channel = channels >= 3 ? c : 0;
        rgb[c] = (values[static_cast<std::size_t>(channel) * plane + y * side + x] - *lo) / range;
      }
      const ImVec2 a{origin.x + static_cast<float>(x) * scale, origin.y + static_cast<float>(y) * scale};
      draw->AddRectFilled(a, {a.x + scale, a.y + scale}, ImGui::ColorConvertFloat4ToU32({rgb[0], rgb[1], rgb[2], 1}));
    }
  }
  const float extent = static_cast<float>(side) * scale;
  ImGui::Dummy({extent, extent});
}

}  // namespace

bool ImageTrainingView::idle() const { return !run_ || run_->finished(); }

void ImageTrainingView::start(const Lesson& lesson, bool gpu_usable) {
  Backend backend = kBackendValues[backend_];
  if (backend == Backend::gpu && !gpu_usable) backend = Backend::emulated;
  run_.reset();  // the previous run stops and joins first
  run_ = lesson.training->live_images(backend);
  lesson_id_ = lesson.id;
}

void ImageTrainingView::draw(const Lesson& lesson, bool gpu_usable) {
  if (backend_ < 0) backend_ = gpu_usable ? 1 : 0;  // without a GPU the CPU trains faster than the emulator
  if (!run_ || lesson_id_ != lesson.id) start(lesson, gpu_usable);
  ImGui::TextWrapped(
      "The network learns GPU Lab's ten classes of shapes, a batch of 32 images a step with Adam. Below: its loss, "
      "its accuracy on images it never saw, some of those images with the class it picks now (green: right), and "
      "its first layer's 3 × 3 filters — what it looks for in the pixels. The GPU trains three passes over 20,000 "
      "images, the CPU one; the emulator, which runs every GPU thread on the CPU, a smaller network on 16 × 16 "
      "images.");
  ImGui::SetNextItemWidth(120);
  ImGui::Combo("backend", &backend_, kBackends, IM_ARRAYSIZE(kBackends));
  ImGui::SameLine();
  if (ImGui::Button(idle() ? "Train again" : "Restart")) start(lesson, gpu_usable);
  ImGui::SameLine();
  ImGui::BeginDisabled(idle());
  if (ImGui::Button("Stop")) run_->stop();
  ImGui::EndDisabled();
  const ImageTrainingSnapshot s = run_->snapshot();
  ImGui::TextUnformatted(fmt::format("{}  ·  step {} of {}  ·  {:.1f} s ({:.3g} ms a step){}", s.network, s.steps,
                                     s.total_steps, s.seconds, s.steps > 0 ? s.seconds / s.steps * 1e3 : 0.0,
                                     s.finished ? "  ·  done" : "")
                             .c_str());
  if (!s.error.empty()) ImGui::TextColored({1.0f, 0.45f, 0.4f, 1.0f}, "%s", s.error.c_str());
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // Left: the curves; right: the images and the filters.
  const float left_width = std::max(240.0f, avail.x * 0.45f);
  ImGui::BeginGroup();
  std::vector<std::pair<double, double>> loss, accuracy;
  double top = 0;
  for (const auto& [step, value] : s.loss) {
    loss.emplace_back(step, value);
    top = std::max(top, value);
  }
  for (const auto& [step, value] : s.accuracy) accuracy.emplace_back(step, value);
  const CurveAxes steps{static_cast<double>(std::max(1, s.total_steps)), fmt::format("step {}", s.total_steps)};
  const ImVec2 chart{left_width, std::max(120.0f, (avail.y - 60) / 2)};
  draw_curve("loss", "loss (cross-entropy) of each batch", loss, steps, top > 0 ? top * 1.05 : 1.0, series_colour(0),
             chart);
  draw_curve("accuracy",
             s.accuracy.empty() ? std::string("accuracy on unseen images")
                                : fmt::format("accuracy on unseen images: {:.1f} %", 100 * s.accuracy.back().second),
             accuracy, steps, 1.0, series_colour(1), chart);
  ImGui::EndGroup();
  ImGui::SameLine();
  ImGui::BeginGroup();
  const int columns = 8;
  const float scale =
      std::clamp((avail.x - left_width - 40) / (columns * (static_cast<float>(s.side) + 4.0f)), 1.0f, 4.0f);
  for (std::size_t i = 0; i < s.images.size(); ++i) {
    if (i % columns != 0) ImGui::SameLine();
    ImGui::BeginGroup();
    draw_picture(s.images[i].data(), s.channels, s.side, scale);
    const bool known = i < s.predicted.size();
    const bool right = known && s.predicted[i] == s.labels[i];
    const std::string name = known && s.predicted[i] >= 0 && s.predicted[i] < static_cast<int>(s.class_names.size())
                                 ? s.class_names[static_cast<std::size_t>(s.predicted[i])]
                                 : "?";
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + std::max(static_cast<float>(s.side) * scale, 76.0f));
    ImGui::TextColored(right ? ImVec4{0.45f, 0.85f, 0.45f, 1} : ImVec4{1.0f, 0.5f, 0.45f, 1}, "%s", name.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
    if (ImGui::IsItemHovered() && s.labels[i] < static_cast<int>(s.class_names.size())) {
      ImGui::SetTooltip("a %s; the network says %s", s.class_names[static_cast<std::size_t>(s.labels[i])].c_str(),
                        name.c_str());
    }
  }
  if (!s.filters.empty()) {
    ImGui::TextUnformatted("the first layer's filters (3 × 3 × RGB each)");
    const std::size_t each = static_cast<std::size_t>(s.channels) * s.filter_size * s.filter_size;
    for (int f = 0; f < s.filter_count; ++f) {
      if (f % 8 != 0) ImGui::SameLine();
      draw_picture(s.filters.data() + f * each, s.channels, s.filter_size, 10.0f);
    }
  }
  ImGui::EndGroup();
}

}  // namespace gpulab::app
