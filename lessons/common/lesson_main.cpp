// main() of every lesson executable: the lesson comes from the registry, the rest from the
// shared command-line front end.
#include <cstdio>

#include "common/cli.hpp"
#include "registry.hpp"

int main(int argc, char** argv) {
  const gpulab::Lesson* lesson = gpulab::find_lesson(GPULAB_LESSON_ID);
  if (lesson == nullptr) {
    std::fprintf(stderr, "lesson %s is not in the registry\n", GPULAB_LESSON_ID);
    return gpulab::kExitFailed;
  }
  return gpulab::lesson_cli_main(*lesson, gpulab::all_lessons(), argc, argv);
}
