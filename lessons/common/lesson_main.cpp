// main() of every lesson executable: the lesson comes from the registry, the rest from the
// shared command-line front end. Which lesson: gpulab_lesson_id, a line each executable adds
// (gpulab_add_lesson), so that this file is compiled once for all of them.
#include <cstdio>

#include "common/cli.hpp"
#include "registry.hpp"

extern const char* const gpulab_lesson_id;

int main(int argc, char** argv) {
  const gpulab::Lesson* lesson = gpulab::find_lesson(gpulab_lesson_id);
  if (lesson == nullptr) {
    std::fprintf(stderr, "lesson %s is not in the registry\n", gpulab_lesson_id);
    return gpulab::kExitFailed;
  }
  return gpulab::lesson_cli_main(*lesson, gpulab::all_lessons(), argc, argv);
}
