// The Exercise view: the task, the Grade button and its result, the hints, the learner's file.
#include <imgui.h>

#include "ui/app_window.hpp"
#include "ui/markdown_view.hpp"
#include "ui/view_helpers.hpp"

namespace gpulab::app {

// The lesson's exercise: what to write and where, the Grade button and its result, the text's
// Exercise section with its hints one at a time, and the learner's file as it is now.
void AppWindow::draw_exercise() {
  const grading::Exercise* exercise = grading::find_exercise(lesson_->id);
  if (exercise == nullptr) {
    ImGui::TextDisabled("This lesson has no exercise.");
    return;
  }
  LessonState& s = state();
  ImGui::PushTextWrapPos(0);
  ImGui::TextWrapped("Your task: %s.", exercise->task.c_str());
  ImGui::TextWrapped("Your file: %s. It runs as the variant \"yours\" (tick it in the Run view).",
                     exercise->file.c_str());
  draw_grading(*exercise);
  draw_markdown(exercise_section(s.text), fonts_, &s.hints_shown);
  if (ImGui::CollapsingHeader(("Your file: " + exercise->file).c_str())) {
    if (ImGui::SmallButton("Reload")) s.exercise_source.clear();
    if (s.exercise_source.empty()) {
      std::string error;
      s.exercise_source = read_text(options_.data_dir + "/" + exercise->file, error);
      if (!error.empty()) s.exercise_source = "// " + error;
    }
    app::draw_code(s.exercise_source, fonts_, true);
  }
  ImGui::PopTextWrapPos();
}

// The Grade button (on the GPU or emulated) and the last grade: each size, the first failure.
void AppWindow::draw_grading(const grading::Exercise& exercise) {
  const bool busy = grade_job_.busy();
  const bool mine = grade_job_.exercise() == exercise.name;
  if (gpu_usable_) {
    ImGui::Checkbox("on the GPU", &grade_on_gpu_);
    ImGui::SameLine();
  }
  const Backend backend = gpu_usable_ && grade_on_gpu_ ? Backend::gpu : Backend::emulated;
  if (busy) {
    if (ImGui::Button("Cancel grading")) grade_job_.cancel();
    ImGui::SameLine();
    ImGui::TextDisabled("grading %s: %zu sizes done", exercise.name.c_str(), grade_job_.progress().size());
  } else if (ImGui::Button(backend == Backend::gpu ? "Grade my kernel (GPU)" : "Grade my kernel (emulated)")) {
    grade_job_.start(exercise, backend);
    state().exercise_source.clear();  // show the file as it was graded
  }
  const std::optional<grading::Grade> grade = mine ? grade_job_.result() : std::nullopt;
  if (!grade) return;
  const ImVec4 colour = grade->passed ? ImVec4(0.4f, 0.9f, 0.4f, 1) : ImVec4(1, 0.45f, 0.4f, 1);
  const char* verdict = grade->skipped ? "SKIPPED" : grade->passed ? "PASSED" : "NOT YET";
  ImGui::TextColored(colour, "%s on the %s backend (seed %llu)", verdict,
                     std::string(to_string(grade->backend)).c_str(), static_cast<unsigned long long>(grade->seed));
  for (const grading::CaseResult& c : grade->cases) {
    ImGui::TextColored(c.passed ? ImVec4(0.6f, 0.8f, 0.6f, 1) : ImVec4(1, 0.55f, 0.5f, 1), "  %s  %s, block %d",
                       c.passed ? "pass" : "FAIL", c.size.c_str(), c.block);
  }
  if (!grade->passed) ImGui::TextWrapped("%s", grade->message.c_str());
}

}  // namespace gpulab::app
