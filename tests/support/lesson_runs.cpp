#include "support/lesson_runs.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "common/random.hpp"

namespace gpulab::test {

namespace {

const RunFactory& factory_of(const std::string& lesson_id, const std::string& variant, Backend backend) {
  const Lesson* lesson = find_lesson(lesson_id);
  if (lesson == nullptr) throw std::invalid_argument("no lesson " + lesson_id);
  const auto v = std::find_if(lesson->variants.begin(), lesson->variants.end(),
                              [&](const Variant& x) { return x.name == variant; });
  if (v == lesson->variants.end()) throw std::invalid_argument("no variant " + variant);
  const auto b = std::find_if(v->backends.begin(), v->backends.end(), [&](auto& p) { return p.first == backend; });
  if (b == v->backends.end())
    throw std::invalid_argument(variant + " does not run on " + std::string(to_string(backend)));
  return b->second;
}

RunOptions test_options(Backend backend, int block, std::uint64_t seed) {
  RunOptions options;
  options.block = block;
  // Two timed runs prove the re-check after timing; emulation is slow, so one there.
  options.reps = backend == Backend::emulated ? 1 : 2;
  options.warmup = backend == Backend::emulated ? 0 : 1;
  options.seed = seed;
  return options;
}

}  // namespace

Measurement run_variant(const std::string& lesson_id, const std::string& variant, Backend backend, std::int64_t n,
                        int block, std::uint64_t seed) {
  const Lesson* lesson = find_lesson(lesson_id);
  if (lesson == nullptr) throw std::invalid_argument("no lesson " + lesson_id);
  return run_variant(lesson_id, variant, backend, lesson->problem(n), block, seed);
}

std::vector<Problem> test_problems(const Lesson& lesson) {
  if (!lesson.test_problems.empty()) return lesson.test_problems;
  std::vector<Problem> problems;
  for (std::int64_t n : lesson.test_sizes) problems.push_back(lesson.problem(n));
  return problems;
}

Measurement run_variant(const std::string& lesson_id, const std::string& variant, Backend backend,
                        const Problem& problem, int block, std::uint64_t seed) {
  const RunFactory& make = factory_of(lesson_id, variant, backend);
  const Lesson& lesson = *find_lesson(lesson_id);
  const auto instance = lesson.make_instance(problem, seed);
  const RunOptions options = test_options(backend, block, seed);
  const auto run = make(*instance, options);
  return measure(*run, backend, options);
}

Measurement run_variant_on(const std::string& lesson_id, const std::string& variant, Backend backend,
                           const Instance& instance, int block) {
  const RunOptions options = test_options(backend, block, 0);
  const auto run = factory_of(lesson_id, variant, backend)(instance, options);
  return measure(*run, backend, options);
}

std::vector<std::string> variants_on(const std::string& lesson_id, Backend backend) {
  std::vector<std::string> names;
  for (const Variant& v : find_lesson(lesson_id)->variants) {
    for (const auto& [b, make] : v.backends) {
      if (b == backend) names.push_back(v.name);
    }
  }
  return names;
}

std::uint64_t test_seed() {
  // GPULAB_TEST_SEED replays a failure; otherwise every run draws new inputs.
  static const std::uint64_t seed = []() -> std::uint64_t {
    if (const char* s = std::getenv("GPULAB_TEST_SEED")) return std::strtoull(s, nullptr, 10);
    return fresh_seed();
  }();
  return seed;
}

}  // namespace gpulab::test
