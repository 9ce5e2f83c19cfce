#include "core/grade_job.hpp"

#include "common/random.hpp"

namespace gpulab::app {

GradeJob::~GradeJob() {
  cancel();
  join();
}

void GradeJob::join() {
  if (thread_.joinable()) thread_.join();
}

void GradeJob::start(const grading::Spec& exercise, Backend backend) {
  cancel();
  join();
  {
    std::lock_guard lock(mutex_);
    exercise_ = exercise.name;
    progress_.clear();
    result_.reset();
  }
  cancelled_ = false;
  busy_ = true;
  thread_ = std::thread([this, &exercise, backend] {
    grading::Grade grade;
    try {
      grading::GradeOptions options;
      options.backend = backend;
      options.seed = fresh_seed();
      if (backend == Backend::gpu) options.sanitizers = {"memcheck", "racecheck"};
      grade = grading::grade(
          exercise, {}, options,
          [this](const grading::CaseResult& r) {
            std::lock_guard lock(mutex_);
            progress_.push_back(r);
          },
          [this] { return cancelled_.load(); });
    } catch (const std::exception& e) {  // the app shows it and goes on
      grade.exercise = exercise.name;
      grade.backend = backend;
      grade.message = std::string("grading stopped: ") + e.what();
    }
    std::lock_guard lock(mutex_);
    result_ = std::move(grade);
    busy_ = false;
  });
}

std::vector<grading::CaseResult> GradeJob::progress() const {
  std::lock_guard lock(mutex_);
  return progress_;
}

std::optional<grading::Grade> GradeJob::result() const {
  std::lock_guard lock(mutex_);
  return result_;
}

std::string GradeJob::exercise() const {
  std::lock_guard lock(mutex_);
  return exercise_;
}

}  // namespace gpulab::app
