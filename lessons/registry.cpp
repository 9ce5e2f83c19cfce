#include "registry.hpp"

#include <algorithm>
#include <string>

#include "grading/grading.hpp"
#include "grading/submission_run.hpp"

namespace gpulab {

// Each lesson's folder defines NAME_lesson(); lessons.inc (written by lessons/CMakeLists.txt from
// its gpulab_add_lesson lines) lists them in order.
#define X(name, number, part, kernels) const Lesson& name##_lesson();
#include "lessons.inc"
#undef X

namespace {

// "docs/lessons/07-tiny-network.md" for lesson 07, tiny_network.
std::string text_file_of(const std::string& number, std::string name) {
  std::replace(name.begin(), name.end(), '_', '-');
  return "docs/lessons/" + number + "-" + name + ".md";
}

// A lesson as the executables and the app see it: what its gpulab_add_lesson line says (its number,
// name, text, the part of the course it is in, its kernels' folder among the Code view's sources),
// its exercises' files as the variant `yours` (lessons/NN_*/exercises/*/, found at run time), and every
// instance knowing the problem it was made for.
Lesson registered(const Lesson& own, const char* number, const char* name, const char* part, const char* kernels) {
  Lesson l = own;
  l.id = number;
  l.name = name;
  l.text_file = text_file_of(l.id, l.name);
  l.part = part;
  // (After the files the lesson lists first, in the order it teaches them: the rest of its folder.)
  if (*kernels != '\0' && std::find(l.sources.begin(), l.sources.end(), kernels) == l.sources.end())
    l.sources.push_back(kernels);
  l.make_instance = [make = own.make_instance](const Problem& p, std::uint64_t seed) {
    std::unique_ptr<Instance> instance = make(p, seed);
    instance->problem = p;
    return instance;
  };
  for (Variant& v : grading::exercise_variants(l)) l.variants.push_back(std::move(v));
  for (const grading::Spec* e : grading::exercises_of_lesson(l.id))
    l.sources.push_back(e->shown_path());  // the Code view's tabs
  return l;
}

}  // namespace

const std::vector<const Lesson*>& all_lessons() {
#define X(name, number, part, kernels) registered(name##_lesson(), number, #name, part, kernels),
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
