#pragma once
// Grading a class: every student's folder in a submissions folder (laid out like exercises/:
// STUDENT/05_matmul/exercise.cu), each file built and each case run in processes of their own,
// into a CSV gradebook and, for course autograders, each student's results.json.
#include <filesystem>
#include <ostream>
#include <vector>

#include "grading/grading.hpp"

namespace gpulab::grading {

struct ClassOptions {
  std::filesystem::path submissions;
  std::filesystem::path gradebook;  // CSV: student, exercise, passed, score, failures (empty: none)
  bool gradescope = false;          // STUDENT/results.json: score, tests (name, score, max_score, output)
};

// Grades every student on `exercises`, printing a line per student and exercise to `log`.
// Returns 0 when every student was graded and the files written (whatever their grades), 2 when
// the folder cannot be read or a file cannot be written.
int grade_class(const std::vector<const Spec*>& exercises, const GradeOptions& options,
                const ClassOptions& class_options, std::ostream& log);

// One CSV field, quoted where it needs to be.
std::string csv_field(const std::string& text);

// The course autograders' results.json for one student's grades (their seed left out: the
// hidden cases stay hidden).
std::string gradescope_json(const std::vector<Grade>& grades);

}  // namespace gpulab::grading
