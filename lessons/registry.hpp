#pragma once
// Every lesson GPU Lab has, in order: the executables and the app see the same list.
#include <string_view>
#include <vector>

#include "common/lesson.hpp"

namespace gpulab {

const std::vector<const Lesson*>& all_lessons();
const Lesson* find_lesson(std::string_view id);  // "01"; nullptr when there is none

}  // namespace gpulab
