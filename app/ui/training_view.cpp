// Drawing lesson 07's training: controls, the heat map with the data, two curves.
#include "ui/training_view.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "ui/plot.hpp"

namespace gpulab::app {

namespace {

constexpr const char* kDatasets[] = {"xor", "moons", "circles", "spirals"};
constexpr int kWidths[] = {8, 16, 32};
constexpr const char* kWidthNames[] = {"8 units", "16 units", "32 units"};
constexpr const char* kBackends[] = {"CPU", "GPU", "emulated"};
constexpr Backend kBackendValues[] = {Backend::cpu, Backend::gpu, Backend::emulated};

// Output 0 (label 0) to 1 (label 1): blue through grey to orange, as the points' colours.
// `brightness` dims the background so the points stand out; opaque, so neighbouring cells do not
// blend into seams where they overlap.
ImU32 output_colour(float v, float brightness) {
  const float t = std::clamp(v, 0.0f, 1.0f);
  const float r = 0.25f + 0.70f * t, g = 0.45f + 0.10f * (1 - std::abs(2 * t - 1)), b = 0.95f - 0.75f * t;
  return ImGui::ColorConvertFloat4ToU32({r * brightness, g * brightness, b * brightness, 1.0f});
}

void draw_boundary(const mlp::Boundary& boundary, const mlp::Data& data, float side) {
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("boundary", {side, side});
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const int n = boundary.size;
  if (n > 0 && boundary.outputs.size() == static_cast<std::size_t>(n) * n) {
    const float cell = side / static_cast<float>(n);
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < n; ++c) {
        const ImVec2 a{origin.x + static_cast<float>(c) * cell, origin.y + static_cast<float>(r) * cell};
        draw->AddRectFilled(a, {a.x + cell + 0.5f, a.y + cell + 0.5f},
                            output_colour(boundary.outputs[static_cast<std::size_t>(r) * n + c], 0.6f));
      }
    }
  }
  const float span = boundary.hi - boundary.lo;
  if (span <= 0) return;
  for (int i = 0; i < data.count; ++i) {
    const float x = data.x[2 * static_cast<std::size_t>(i)], y = data.x[2 * static_cast<std::size_t>(i) + 1];
    const ImVec2 p{origin.x + (x - boundary.lo) / span * side, origin.y + (boundary.hi - y) / span * side};
    draw->AddCircleFilled(p, 3.0f, output_colour(data.y[static_cast<std::size_t>(i)], 1.0f));
    draw->AddCircle(p, 3.0f, IM_COL32(20, 20, 24, 255));
  }
  draw->AddRect(origin, {origin.x + side, origin.y + side}, IM_COL32(200, 200, 210, 255));
}

}  // namespace

bool TrainingView::idle() const { return !run_ || run_->finished(); }

void TrainingView::start(bool gpu_usable) {
  mlp::TrainingSetup setup;
  setup.dataset = static_cast<mlp::Dataset>(dataset_);
  setup.net.sizes = {2};
  for (int l = 0; l < hidden_layers_; ++l) setup.net.sizes.push_back(kWidths[width_index_]);
  setup.net.sizes.push_back(1);
  setup.options = {epochs_, batch_, lr_, mlp::Loss::bce};
  setup.backend = kBackendValues[backend_];
  if (setup.backend == Backend::gpu && !gpu_usable) setup.backend = Backend::emulated;
  setup.variant = variant_;
  run_ = std::make_unique<mlp::LiveTraining>(setup);  // the previous run stops and joins first
}

void TrainingView::draw(bool gpu_usable) {
  if (backend_ < 0) backend_ = gpu_usable ? 1 : 2;
  ImGui::TextWrapped(
      "Train the network on points of two classes and watch it learn: the background is the network's "
      "output over the plane (blue 0, orange 1), the dots the training data. The same step runs on "
      "the CPU, the GPU or the emulator; pick one and a variant.");
  const bool running = !idle();
  ImGui::BeginDisabled(running);
  ImGui::SetNextItemWidth(110);
  ImGui::Combo("data", &dataset_, kDatasets, IM_ARRAYSIZE(kDatasets));
  ImGui::SameLine();
  ImGui::SetNextItemWidth(90);
  ImGui::SliderInt("hidden layers", &hidden_layers_, 1, 2);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(70);
  ImGui::Combo("hidden width", &width_index_, kWidthNames, IM_ARRAYSIZE(kWidthNames));
  ImGui::SameLine();
  ImGui::SetNextItemWidth(110);
  if (ImGui::InputInt("epochs", &epochs_, 100)) epochs_ = std::clamp(epochs_, 1, 100000);
  ImGui::SetNextItemWidth(110);
  if (ImGui::InputInt("batch", &batch_, 16)) batch_ = std::clamp(batch_, 1, 512);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(110);
  ImGui::SliderFloat("learning rate", &lr_, 0.1f, 10.0f, "%.1f");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(100);
  ImGui::Combo("backend", &backend_, kBackends, IM_ARRAYSIZE(kBackends));
  if (backend_ == 1 && !gpu_usable) {
    ImGui::SameLine();
    ImGui::TextDisabled("(no GPU: runs emulated)");
  }
  mlp::Layout net{{2}};
  for (int l = 0; l < hidden_layers_; ++l) net.sizes.push_back(kWidths[width_index_]);
  net.sizes.push_back(1);
  const Backend backend = backend_ == 1 && !gpu_usable ? Backend::emulated : kBackendValues[backend_];
  const std::vector<std::string> variants = mlp::training_variants(net, batch_, backend);
  if (std::find(variants.begin(), variants.end(), variant_) == variants.end()) {
    // The fastest that fits, as a default: the fused kernels, else the layered step.
    variant_ = variants.empty() ? "" : variants.back();
  }
  ImGui::SameLine();
  ImGui::SetNextItemWidth(150);
  if (ImGui::BeginCombo("variant", variant_.c_str())) {
    for (const std::string& v : variants) {
      if (ImGui::Selectable(v.c_str(), v == variant_)) variant_ = v;
    }
    ImGui::EndCombo();
  }
  ImGui::EndDisabled();
  ImGui::SameLine();
  if (running) {
    if (ImGui::Button("Stop")) run_->stop();
  } else if (ImGui::Button("Train") || !started_) {
    started_ = true;
    start(gpu_usable);
  }
  if (!run_) return;

  const mlp::LiveTraining::Snapshot s = run_->snapshot();
  const mlp::TrainingSetup& setup = run_->setup();
  if (!s.error.empty()) ImGui::TextColored({1, 0.4f, 0.4f, 1}, "The run stopped: %s", s.error.c_str());
  const double steps =
      static_cast<double>(s.curve.size()) * ((setup.points + setup.options.batch - 1) / setup.options.batch);
  const std::string line =
      fmt::format("{}, {} on {} ({}): epoch {} of {}, loss {:.4f}, accuracy {:.1f} %, {:.0f} µs a step on average{}",
                  mlp::dataset_name(setup.dataset), mlp::to_string(setup.net), to_string(setup.backend), setup.variant,
                  s.curve.size(), setup.options.epochs, s.curve.empty() ? 0.0 : s.curve.back().loss,
                  s.curve.empty() ? 0.0 : 100 * s.curve.back().accuracy, steps > 0 ? s.seconds / steps * 1e6 : 0.0,
                  s.finished ? "" : " …");
  ImGui::TextUnformatted(line.c_str());
  ImGui::TextDisabled("(a step here includes copying the batch and the parameters to and from the device each time)");

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float side = std::max(120.0f, std::min(avail.y - 8, avail.x * 0.5f));
  draw_boundary(s.boundary, run_->data(), side);
  ImGui::SameLine();
  ImGui::BeginGroup();
  std::vector<std::pair<double, double>> loss, accuracy;
  double top = 0;
  for (const mlp::Epoch& e : s.curve) {
    loss.emplace_back(static_cast<double>(loss.size()), e.loss);
    accuracy.emplace_back(static_cast<double>(accuracy.size()), e.accuracy);
    top = std::max(top, e.loss);
  }
  const ImVec2 chart{std::max(120.0f, avail.x - side - 16), side / 2 - 4};
  const CurveAxes epochs{static_cast<double>(std::max(1, setup.options.epochs - 1)),
                         "epoch " + std::to_string(setup.options.epochs)};
  draw_curve("loss", "loss (binary cross-entropy), mean over each epoch", loss, epochs, top > 0 ? top * 1.05 : 1.0,
             series_colour(0), chart);
  draw_curve("accuracy", "training accuracy", accuracy, epochs, 1.0, series_colour(1), chart);
  ImGui::EndGroup();
}

}  // namespace gpulab::app
