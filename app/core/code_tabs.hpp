#pragma once
// The Code view's tab names: a source file's name, or its folder and name where another of the
// lesson's files has the same name (each exercise's exercise.cu) — ImGui takes tabs of one name
// for one tab, and a learner could not tell them apart.
#include <string>
#include <utility>
#include <vector>

namespace gpulab::app {

// One name per path, in order: "matmul.cu", "05_matvec/exercise.cu".
std::vector<std::string> code_tab_names(const std::vector<std::pair<std::string, std::string>>& sources);

}  // namespace gpulab::app
