// The Exercise view: the task, the Grade button and its result, the hints, the learner's file.
#include <imgui.h>

#include <algorithm>

#include "ui/app_window.hpp"
#include "ui/markdown_view.hpp"
#include "ui/view_helpers.hpp"

namespace gpulab::app {

// The lesson's exercise (a choice where it has several): what to write and where, the Grade
// button and its result, the hints one at a time (the exercise's own, or the text's Exercise
// section), and the learner's file as it is now.
void AppWindow::draw_exercise() {
  const std::vector<const grading::Spec*> exercises = grading::exercises_of_lesson(lesson_->id);
  if (exercises.empty()) {
    ImGui::TextDisabled("This lesson has no exercise.");
    return;
  }
  LessonState& s = state();
  s.exercise = std::clamp(s.exercise, 0, static_cast<int>(exercises.size()) - 1);
  if (exercises.size() > 1) {
    for (std::size_t i = 0; i < exercises.size(); ++i) {
      if (i > 0) ImGui::SameLine();
      if (ImGui::RadioButton(exercises[i]->title.c_str(), s.exercise == static_cast<int>(i))) {
        s.exercise = static_cast<int>(i);
        s.exercise_source.clear();
        s.hints_shown = 0;
      }
    }
  }
  const grading::Spec& exercise = *exercises[static_cast<std::size_t>(s.exercise)];
  const std::string path = exercise.shown_path();
  ImGui::PushTextWrapPos(0);
  ImGui::TextWrapped("Your task: %s.", exercise.task.c_str());
  ImGui::TextWrapped(
      "Your file: %s — the kernel and its launch are yours. The grader builds it as it is saved "
      "(no rebuild of GPU Lab) and calls %s.",
      path.c_str(), exercise.entry.c_str());
  if (!exercise.run.empty())
    ImGui::TextDisabled("It also runs as a variant \"yours\" in the Run view (tick it there).");
  draw_grading(exercise);
  if (exercise.hints.empty()) {
    draw_markdown(exercise_section(s.text), fonts_, &s.hints_shown);
  } else {
    for (int i = 0; i < s.hints_shown && i < static_cast<int>(exercise.hints.size()); ++i)
      ImGui::TextWrapped("Hint %d: %s", i + 1, exercise.hints[static_cast<std::size_t>(i)].c_str());
    if (s.hints_shown < static_cast<int>(exercise.hints.size()) &&
        ImGui::SmallButton(("Show hint " + std::to_string(s.hints_shown + 1)).c_str())) {
      ++s.hints_shown;
    }
  }
  if (ImGui::CollapsingHeader(("Your file: " + path).c_str())) {
    if (ImGui::SmallButton("Reload")) s.exercise_source.clear();
    if (s.exercise_source.empty()) {
      std::string error;
      s.exercise_source = read_text(exercise.learner_file().string(), error);
      if (!error.empty()) s.exercise_source = "// " + error;
    }
    app::draw_code(s.exercise_source, fonts_, true);
  }
  ImGui::PopTextWrapPos();
}

// The Grade button (on the GPU or emulated) and the last grade: each case, the first failure.
void AppWindow::draw_grading(const grading::Spec& exercise) {
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
    ImGui::TextDisabled("grading %s: %zu cases done", exercise.name.c_str(), grade_job_.progress().size());
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
    ImGui::TextColored(c.passed ? ImVec4(0.6f, 0.8f, 0.6f, 1) : ImVec4(1, 0.55f, 0.5f, 1), "  %s  %s",
                       c.passed ? "pass" : "FAIL", c.label.c_str());
  }
  if (!grade->passed) ImGui::TextWrapped("%s", grade->message.c_str());
}

}  // namespace gpulab::app
