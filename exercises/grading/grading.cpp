// Runs an exercise's cases through the lessons' own measuring path and says what went wrong.
#include "grading/grading.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "common/cuda_error.hpp"
#include "common/device_info.hpp"
#include "common/measure.hpp"
#include "common/results.hpp"
#include "common/session.hpp"
#include "registry.hpp"

namespace gpulab::grading {

namespace {

constexpr int kIllegalAddress = 700;  // cudaErrorIllegalAddress (the emulator's memcheck says the same)

const Variant* variant_of(const Lesson& lesson, const std::string& name) {
  for (const Variant& v : lesson.variants) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

const RunFactory* factory_on(const Variant& v, Backend backend) {
  for (const auto& [b, make] : v.backends) {
    if (b == backend) return &make;
  }
  return nullptr;
}

std::string element_at(const Exercise& e, std::size_t index, const Problem& p) {
  return e.where ? e.where(index, p) : "element " + std::to_string(index);
}

// The first wrong element of a failed check, said as a learner would look for it.
std::string explain_check(const Exercise& e, const CheckResult& check, const GradeCase& c) {
  if (check.first.empty()) return check.message;
  const Mismatch& m = check.first.front();
  const std::string at = element_at(e, m.index, c.problem);
  std::string what;
  if (is_poison(static_cast<float>(m.got))) {
    what = at + " was never written (it still holds the poison value the grader put there)";
    if (e.unwritten) what += ": " + e.unwritten(c.problem, c.block);
  } else if (std::isnan(m.got)) {
    what = fmt::format("{} is NaN, expected {:.9g}", at, m.expected);
  } else if (std::isnan(m.expected)) {
    what = fmt::format("{} is {:.9g}, expected NaN", at, m.got);
  } else {
    what = fmt::format("{} is {:.9g}, expected {:.9g}", at, m.got, m.expected);
  }
  return fmt::format("{} ({} of {} elements wrong).", what, check.mismatches, check.checked);
}

// A launch or a run that threw: the launch was refused, or the kernel touched memory it must not.
std::string explain_error(const std::exception& error) {
  const auto* cuda = dynamic_cast<const CudaError*>(&error);
  if (cuda != nullptr && cuda->code() == kIllegalAddress) {
    return std::string(
               "a thread read or wrote outside an array (an out-of-bounds access): does every thread "
               "check that its element exists before it touches it? Details: ") +
           error.what();
  }
  return std::string("the run failed: ") + error.what();
}

CaseResult run_case(const Exercise& e, const Lesson& lesson, const RunFactory& make, Backend backend,
                    const GradeCase& c, std::uint64_t seed) {
  CaseResult r;
  r.size = problem_label(c.problem);
  r.block = c.block;
  RunOptions options;
  options.block = c.block;
  options.reps = 1;
  options.warmup = 0;
  options.seed = seed;
  try {
    const auto instance =
        c.edge_inputs && lesson.edge_instance ? lesson.edge_instance(seed) : lesson.make_instance(c.problem, seed);
    if (c.edge_inputs) r.size += " (edge values: ±0, ±inf, NaN, huge, tiny)";
    const auto run = make(*instance, options);
    const Measurement m = measure(*run, backend, options);
    const CheckResult& bad = !m.first_check.passed ? m.first_check : m.final_check;
    r.passed = m.first_check.passed && m.final_check.passed;
    if (!r.passed) r.message = explain_check(e, bad, c);
  } catch (const NotApplicable& skip) {
    r.passed = false;
    r.message = std::string("could not run: ") + skip.what();
  } catch (const std::exception& error) {
    r.passed = false;
    r.message = explain_error(error);
    if (backend == Backend::gpu) {
      const DeviceRecovery recovered = recover_device();  // an illegal address spoils the context
      if (!recovered.usable) r.message += " (and the GPU could not be recovered: " + recovered.message + ")";
    }
  }
  if (!r.passed && !c.catches.empty()) {
    if (!r.message.empty() && r.message.back() != '.') r.message += '.';
    r.message += " This size is there to catch: " + c.catches + ".";
  }
  return r;
}

}  // namespace

const Exercise* find_exercise(std::string_view id) {
  for (const Exercise& e : all_exercises()) {
    if (e.lesson == id || e.name == id) return &e;
  }
  return nullptr;
}

Grade grade(const Exercise& exercise, Backend backend, std::uint64_t seed,
            const std::function<void(const CaseResult&)>& progress, const std::function<bool()>& cancelled) {
  Grade g;
  g.exercise = exercise.name;
  g.variant = exercise.variant;
  g.lesson = exercise.lesson;
  g.file = exercise.file;
  g.backend = backend;
  g.seed = seed;
  const Lesson* lesson = find_lesson(exercise.lesson);
  const Variant* yours = lesson != nullptr ? variant_of(*lesson, exercise.variant) : nullptr;
  const RunFactory* make = yours != nullptr ? factory_on(*yours, backend) : nullptr;
  if (backend == Backend::gpu && !device_info().available) {
    g.skipped = true;
    g.message = "not graded on the GPU: " + device_info().reason;
    return g;
  }
  if (make == nullptr) {
    g.skipped = backend == Backend::gpu;  // an emulated-only build has no GPU backend at all
    g.message = "lesson " + exercise.lesson + " has no variant " + exercise.variant + " on the " +
                std::string(to_string(backend)) + " backend in this build";
    return g;
  }
  const std::vector<GradeCase> cases = exercise.cases(seed);
  std::uint64_t case_seed = seed;
  for (const GradeCase& c : cases) {
    if (cancelled && cancelled()) {
      g.message = "cancelled";
      return g;
    }
    ++case_seed;  // each case its own inputs, all replayed by the one seed
    const CaseResult r = run_case(exercise, *lesson, *make, backend, c, case_seed);
    g.cases.push_back(r);
    if (progress) progress(r);
  }
  const auto failed = std::find_if(g.cases.begin(), g.cases.end(), [](const CaseResult& r) { return !r.passed; });
  g.passed = failed == g.cases.end() && !g.cases.empty();
  if (g.passed) {
    g.message = fmt::format("all {} sizes passed", g.cases.size());
  } else if (failed != g.cases.end()) {
    g.message = fmt::format("{}, block {}: {}", failed->size, failed->block, failed->message);
  }
  return g;
}

std::string report_json(const std::vector<Grade>& grades) {
  nlohmann::json all = nlohmann::json::array();
  bool every = !grades.empty();
  for (const Grade& g : grades) {
    nlohmann::json cases = nlohmann::json::array();
    for (const CaseResult& c : g.cases) {
      cases.push_back({{"size", c.size}, {"block", c.block}, {"passed", c.passed}, {"message", c.message}});
    }
    all.push_back({{"exercise", g.exercise},
                   {"variant", g.variant},
                   {"lesson", g.lesson},
                   {"file", g.file},
                   {"backend", std::string(to_string(g.backend))},
                   {"seed", g.seed},
                   {"passed", g.passed},
                   {"skipped", g.skipped},
                   {"message", g.message},
                   {"cases", cases}});
    every = every && (g.passed || g.skipped);
  }
  nlohmann::json report = {{"passed", every}, {"exercises", all}};
  if (!grades.empty()) {
    report["backend"] = std::string(to_string(grades.front().backend));
    report["seed"] = grades.front().seed;
  }
  return report.dump(2) + "\n";
}

std::string report_text(const Grade& g) {
  const std::string variant = g.variant == "yours" ? "" : " (variant " + g.variant + ")";
  std::string text = fmt::format("{}{} — {}\n", g.exercise, variant, g.file);
  if (g.skipped) return text + "  skipped: " + g.message + "\n";
  for (const CaseResult& c : g.cases) {
    text += fmt::format("  {} {}, block {}\n", c.passed ? "pass" : "FAIL", c.size, c.block);
  }
  const auto passed = std::count_if(g.cases.begin(), g.cases.end(), [](const CaseResult& c) { return c.passed; });
  if (g.passed) return text + fmt::format("  PASSED: {} of {} sizes\n", passed, g.cases.size());
  return text +
         fmt::format("  FAILED: {} of {} sizes passed. First failure:\n    {}\n", passed, g.cases.size(), g.message);
}

}  // namespace gpulab::grading
