// The Learn view: the lesson's text, with the exercise's hints one at a time.
#include <imgui.h>

#include "ui/app_window.hpp"
#include "ui/markdown_view.hpp"

namespace gpulab::app {

void AppWindow::draw_learn() {
  ImGui::PushTextWrapPos(0);
  draw_markdown(state().text, fonts_, &state().hints_shown);
  ImGui::PopTextWrapPos();
}

}  // namespace gpulab::app
