#pragma once
// The app's Grade button: grades one exercise on its own thread, so the window keeps drawing, and
// hands over each size's result as it ends and the grade at the end.
#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "grading/grading.hpp"

namespace gpulab::app {

class GradeJob {
 public:
  GradeJob() = default;
  ~GradeJob();  // cancels and joins
  GradeJob(const GradeJob&) = delete;
  GradeJob& operator=(const GradeJob&) = delete;

  // Starts grading (a previous job is cancelled and joined first). The seed is fresh each time.
  // `exercise` must outlive the job (those of grading::all_exercises() do). Its own file is
  // graded as it is saved now, built by the grader (no rebuild of GPU Lab).
  void start(const grading::Spec& exercise, Backend backend);
  void cancel() { cancelled_ = true; }
  bool busy() const { return busy_; }
  // The sizes graded so far and, once the job ended, its grade (errors become a failed grade).
  std::vector<grading::CaseResult> progress() const;
  std::optional<grading::Grade> result() const;
  std::string exercise() const;  // the name of the exercise started last

 private:
  void join();

  std::thread thread_;
  std::atomic<bool> busy_{false}, cancelled_{false};
  mutable std::mutex mutex_;
  std::string exercise_;
  std::vector<grading::CaseResult> progress_;
  std::optional<grading::Grade> result_;
};

}  // namespace gpulab::app
