// The Code view: every source file of the lesson, a tab each.
#include <imgui.h>

#include <algorithm>
#include <filesystem>
#include <string_view>
#include <vector>

#include "ui/app_window.hpp"
#include "ui/markdown_view.hpp"

namespace gpulab::app {

void AppWindow::draw_code() {
  // Every file of the lesson, a tab each: its kernels, headers, CPU code and exercise.
  if (!ImGui::BeginTabBar("sources", ImGuiTabBarFlags_FittingPolicyScroll)) return;
  // --tab: selected once, on the first frame that draws this view.
  const auto first = [this](const std::string& name) {
    const bool asked = options_.code_tab == name;
    if (asked) options_.code_tab.clear();
    return asked ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None;
  };
  const auto& sources = state().sources;
  const std::vector<std::string>& names = state().source_tabs;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const auto& [path, text] = sources[i];
    const std::string& label = names[i];
    // --tab names a tab, or a file's name (the first tab of it).
    const ImGuiTabItemFlags select = first(label) | first(std::filesystem::path(path).filename().string());
    if (!ImGui::BeginTabItem(label.c_str(), nullptr, select)) continue;
    ImGui::TextDisabled("%s", path.c_str());
    ImGui::BeginChild("code", {0, 0}, true, ImGuiWindowFlags_HorizontalScrollbar);
    app::draw_code(text, fonts_, true);
    ImGui::EndChild();
    ImGui::EndTabItem();
  }
  if (!state().kernels.empty() && ImGui::BeginTabItem("machine code", nullptr, first("machine code"))) {
    draw_machine_code();
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

// What nvcc made of one of the lesson's kernels: its SASS (the GPU's own instructions) or PTX,
// recorded on an H100 (tools/record-kernel-code.py), with its registers and spills.
void AppWindow::draw_machine_code() {
  LessonState& s = state();
  if (s.code_kernel >= s.kernels.size()) s.code_kernel = 0;
  ImGui::SetNextItemWidth(320);
  if (ImGui::BeginCombo("kernel", s.kernels[s.code_kernel].c_str())) {
    for (std::size_t i = 0; i < s.kernels.size(); ++i) {
      if (ImGui::Selectable(s.kernels[i].c_str(), i == s.code_kernel)) s.code_kernel = i;
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  if (ImGui::RadioButton("SASS", !s.code_ptx)) s.code_ptx = false;
  ImGui::SameLine();
  if (ImGui::RadioButton("PTX", s.code_ptx)) s.code_ptx = true;
  const std::string& kernel = s.kernels[s.code_kernel];
  const std::string key = kernel + (s.code_ptx ? ".ptx" : ".sass");
  if (s.machine_code_of != key) {
    s.machine_code = recorded_kernel_code(kernel_code_, kernel, s.code_ptx);
    s.machine_code_of = key;
  }
  if (const auto f = kernel_facts_.find(kernel); f != kernel_facts_.end()) {
    ImGui::SameLine();
    ImGui::Text("  %s: %d registers a thread, %llu bytes of local memory (spills)%s", f->second.arch.c_str(),
                f->second.registers, static_cast<unsigned long long>(f->second.local_bytes + f->second.stack_bytes),
                f->second.local_bytes + f->second.stack_bytes > 0 ? " — registers spilled to memory" : "");
  }
  ImGui::TextWrapped(
      "%s", s.code_ptx ? "PTX: the virtual instruction set nvcc writes first; the driver or ptxas turns it into the "
                         "GPU's own instructions. Recorded with cuobjdump -ptx on an H100 build (sm_90)."
                       : "SASS: the GPU's own instructions, as cuobjdump -sass shows them for sm_90. Look for the "
                         "memory instructions: LDG/STG (global), LDS/STS (shared), .128 for 16-byte accesses, and "
                         "LDL/STL (local memory: spilled registers).");
  if (s.machine_code.empty()) {
    ImGui::TextDisabled("none recorded for %s: tools/record-kernel-code.py records it where the CUDA toolkit is",
                        kernel.c_str());
    return;
  }
  ImGui::BeginChild("machine", {0, 0}, true, ImGuiWindowFlags_HorizontalScrollbar);
  ImGui::PushFont(fonts_.mono);
  // Thousands of lines: only those in view are drawn.
  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at < s.machine_code.size();) {
    const std::size_t end = std::min(s.machine_code.find('\n', at), s.machine_code.size());
    lines.emplace_back(s.machine_code.data() + at, end - at);
    at = end + 1;
  }
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(lines.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const std::string_view l = lines[static_cast<std::size_t>(i)];
      ImGui::TextUnformatted(l.data(), l.data() + l.size());
    }
  }
  ImGui::PopFont();
  ImGui::EndChild();
}

}  // namespace gpulab::app
