// The learner's exercise as a lesson's variant: see submission_run.hpp.
#include "grading/submission_run.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "common/backend.hpp"
#include "grading/check.hpp"
#include "grading/grading.hpp"
#include "run/cuda_build.hpp"

namespace gpulab::grading {

namespace {

// The exercise's case at a lesson's problem, by the spec's "run" entry.
Case sizes_of(const Spec& spec, const Problem& problem) {
  Sizes lesson_sizes{{"n", problem.n}};
  for (const auto& [name, value] : problem.dims) lesson_sizes[name] = value;
  Case c;
  for (const auto& [name, expression] : spec.run) c.sizes[name] = evaluate(expression, lesson_sizes);
  complete_sizes(spec, c);
  return c;
}

class SubmissionRun : public Run {
 public:
  SubmissionRun(const Spec& spec, bool gpu, const Problem& problem, const RunOptions& options)
      : spec_(spec), gpu_(gpu), options_(options) {
    reference_ = find_reference(spec.reference);
    if (reference_ == nullptr) throw std::invalid_argument(spec.name + " names a reference the grader lacks");
    data_ = make_case_data(spec, *reference_, sizes_of(spec, problem), options.seed);
  }
  void poison() override {}  // the driver poisons the outputs before every call
  void compute() override {
    const Built built = build_submission(spec_, spec_.learner_file(), gpu_, build::default_cache("grade"));
    if (!built.ok) {
      throw std::runtime_error("exercises/" + spec_.name + "/" + spec_.file + " did not compile: " + built.log);
    }
    limits_ = {spec_.time_limit_s, spec_.memory_limit_gb, gpu_};
    result_ = run_case(spec_, built.program, data_, limits_, options_.warmup, std::max(1, options_.reps));
  }
  CheckResult check() const override {
    const CaseResult judged = judge(spec_, *reference_, data_, result_, limits_);
    CheckResult r;
    r.passed = judged.passed;
    r.message = judged.message;
    for (const auto& [name, values] : result_.outputs) r.checked += values.size();
    if (!r.passed) r.mismatches = 1;
    return r;
  }
  bool times_itself() const override { return true; }
  std::vector<PhaseTimes> own_times() const override {
    std::vector<PhaseTimes> times;
    for (const auto& [in, call, out, total] : result_.times) times.push_back({in, call, out, total});
    return times;
  }

 private:
  const Spec& spec_;
  bool gpu_;
  RunOptions options_;
  const Reference* reference_ = nullptr;
  CaseData data_;
  Limits limits_;
  ChildResult result_;
};

}  // namespace

std::vector<Variant> exercise_variants(const Lesson& lesson) {
  std::vector<Variant> variants;
  for (const Spec* spec : exercises_of_lesson(lesson.id)) {
    if (spec->run.empty()) continue;
    Variant v;
    // yours, then yours_grid_stride for 01_vector_add_grid_stride: the name past the lesson's own.
    const std::string own = lesson.id + "_" + lesson.name;
    const std::string rest = spec->name.rfind(own + "_", 0) == 0 ? spec->name.substr(own.size() + 1) : spec->name;
    v.name = variants.empty() ? "yours" : "yours_" + rest;
    v.description = "Your kernel, from exercises/" + spec->name + "/" + spec->file +
                    " as saved (built by the grader, run in a process of its own; gpulab_grade grades it)";
    for (const bool gpu : {false, true}) {
      if (gpu && (!kGpuBuilt || build::nvcc_path().empty())) continue;
      v.backends.emplace_back(gpu ? Backend::gpu : Backend::emulated,
                              [spec, gpu](const Instance& instance, const RunOptions& options) -> std::unique_ptr<Run> {
                                return std::make_unique<SubmissionRun>(*spec, gpu, instance.problem, options);
                              });
    }
    v.fixed_block = true;  // its launch is the learner's
    v.exercise = true;
    // The lesson's own limits (the emulator's largest sizes) hold for it too.
    for (const Variant& other : lesson.variants) {
      if (other.backends.size() > 1 && !other.deliberately_wrong) {
        v.skips = other.skips;
        break;
      }
    }
    if (!spec->run_cost.empty()) {
      v.skips.push_back([spec](const Problem& problem, Backend) -> std::optional<std::string> {
        constexpr double kMostWork = 2e9;  // about a second of the float64 reference
        if (static_cast<double>(evaluate(spec->run_cost, sizes_of(*spec, problem).sizes)) <= kMostWork)
          return std::nullopt;
        return "the grader checks every element against float64, which past " + fmt::format("{:.0e}", kMostWork) +
               " multiply-adds would take minutes: gpulab_grade grades it, or choose a smaller size";
      });
    }
    variants.push_back(std::move(v));
  }
  return variants;
}

}  // namespace gpulab::grading
