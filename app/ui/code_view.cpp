// The Code view: every source file of the lesson, a tab each.
#include <imgui.h>

#include <filesystem>

#include "ui/app_window.hpp"
#include "ui/markdown_view.hpp"

namespace gpulab::app {

void AppWindow::draw_code() {
  // Every file of the lesson, a tab each: its kernels, headers, CPU code and exercise.
  if (!ImGui::BeginTabBar("sources", ImGuiTabBarFlags_FittingPolicyScroll)) return;
  for (const auto& [path, text] : state().sources) {
    if (!ImGui::BeginTabItem(std::filesystem::path(path).filename().string().c_str())) continue;
    ImGui::TextDisabled("%s", path.c_str());
    ImGui::BeginChild("code", {0, 0}, true, ImGuiWindowFlags_HorizontalScrollbar);
    app::draw_code(text, fonts_, true);
    ImGui::EndChild();
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

}  // namespace gpulab::app
