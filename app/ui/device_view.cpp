// The Device view: this machine's GPU (or why there is none), the recorded reference runs, messages.
#include <imgui.h>

#include "base/device_info.hpp"
#include "ui/app_window.hpp"
#include "ui/plot.hpp"
#include "ui/view_helpers.hpp"

namespace gpulab::app {

void AppWindow::draw_device() {
  const DeviceInfo& d = device_info();
  ImGui::PushFont(fonts_.heading[2]);
  ImGui::TextUnformatted("This machine");
  ImGui::PopFont();
  if (d.available) {
    ImGui::Text("GPU: %s", d.name.c_str());
    ImGui::Text("Compute capability %s, %d SMs, %.1f GiB, %d threads per block at most", d.compute_capability().c_str(),
                d.multiprocessors, static_cast<double>(d.total_memory) / (1 << 30), d.max_threads_per_block);
    ImGui::Text("Driver supports CUDA %s, runtime %s", d.driver_string().c_str(), d.runtime_string().c_str());
    if (ready(peaks_)) {
      if (const auto& p = peaks_.get()) {
        ImGui::Text("Measured device-to-device copy: %s", format_value(p->copy_gbps, Unit::gbps).c_str());
      }
    } else {
      ImGui::TextDisabled("measuring the copy bandwidth...");
    }
  }
  if (!gpu_usable_) {
    ImGui::TextColored({1, 0.75f, 0.3f, 1}, "No GPU in use");
    ImGui::TextWrapped("%s", gpu_note_.c_str());
    ImGui::TextWrapped(
        "GPU kernels still run on the emulated backend: the same CUDA source compiled as C++, "
        "every block's threads as fibers on the CPU. Its times are CPU times, labelled "
        "'emulated' everywhere. Real GPU curves come from the recorded results in assets/results/.");
  }
  ImGui::Spacing();
  ImGui::PushFont(fonts_.heading[2]);
  ImGui::TextUnformatted("Recorded reference runs");
  ImGui::PopFont();
  for (const auto& r : recorded_) {
    ImGui::BulletText("%s: %s, %s, %zu rows%s", r.label.c_str(), r.report.date.c_str(), r.report.command.c_str(),
                      r.report.results.size(),
                      r.report.peaks ? (", copy " + format_value(r.report.peaks->copy_gbps, Unit::gbps)).c_str() : "");
  }
  if (!fonts_.note.empty()) ImGui::TextDisabled("%s", fonts_.note.c_str());
  if (!errors_.empty()) {
    ImGui::Spacing();
    ImGui::PushFont(fonts_.heading[2]);
    ImGui::TextUnformatted("Messages");
    ImGui::PopFont();
    for (const auto& e : errors_) ImGui::TextWrapped("%s", e.c_str());
  }
}

}  // namespace gpulab::app
