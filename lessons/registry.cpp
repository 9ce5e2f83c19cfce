#include "registry.hpp"

#include "grading/grading.hpp"
#include "grading/submission_run.hpp"

namespace gpulab {

// Each lesson's folder defines NAME_lesson(); lessons.inc (written by lessons/CMakeLists.txt from
// its gpulab_add_lesson lines) lists them in order.
#define X(name, part) const Lesson& name##_lesson();
#include "lessons.inc"
#undef X

namespace {

// A lesson as the executables and the app see it: the part of the course it is in, its exercises' files as the variant
// `yours` (exercises/NN_*/, found at run time), and every instance knowing the problem it was made for.
Lesson with_exercises(const Lesson& own, const char* part) {
  Lesson l = own;
  l.part = part;
  l.make_instance = [make = own.make_instance](const Problem& p, std::uint64_t seed) {
    std::unique_ptr<Instance> instance = make(p, seed);
    instance->problem = p;
    return instance;
  };
  for (Variant& v : grading::exercise_variants(own)) l.variants.push_back(std::move(v));
  for (const grading::Spec* e : grading::exercises_of_lesson(own.id))
    l.sources.push_back("exercises/" + e->name + "/" + e->file);  // the Code view's tabs
  return l;
}

}  // namespace

const std::vector<const Lesson*>& all_lessons() {
#define X(name, part) with_exercises(name##_lesson(), part),
  static const std::vector<Lesson> lessons = {
#include "lessons.inc"
  };
#undef X
  static const std::vector<const Lesson*> pointers = [] {
    std::vector<const Lesson*> p;
    for (const Lesson& l : lessons) p.push_back(&l);
    return p;
  }();
  return pointers;
}

const Lesson* find_lesson(std::string_view id) {
  for (const Lesson* lesson : all_lessons()) {
    if (lesson->id == id) return lesson;
  }
  return nullptr;
}

}  // namespace gpulab
