#include "registry.hpp"

namespace gpulab {

// Each lesson's folder defines NAME_lesson(); lessons.inc (written by lessons/CMakeLists.txt from
// its gpulab_add_lesson lines) lists them in order.
#define X(name) const Lesson& name##_lesson();
#include "lessons.inc"
#undef X

const std::vector<const Lesson*>& all_lessons() {
#define X(name) &name##_lesson(),
  static const std::vector<const Lesson*> lessons = {
#include "lessons.inc"
  };
#undef X
  return lessons;
}

const Lesson* find_lesson(std::string_view id) {
  for (const Lesson* lesson : all_lessons()) {
    if (lesson->id == id) return lesson;
  }
  return nullptr;
}

}  // namespace gpulab
