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
  // CSV: student, exercise, passed, score (0 to 1), points, max_points, sandboxed, failures (empty: none)
  std::filesystem::path gradebook;
  bool gradescope = false;            // STUDENT/results.json: score, tests (name, score, max_score, output)
  int jobs = 1;                       // students graded at once
  bool progress = false;              // a progress line (a terminal): students done, failures, time left
  std::size_t shard = 0, shards = 1;  // grade every shards-th student from the shard-th (a cluster's job array)
};

inline constexpr const char* kGradebookHeader = "student,exercise,passed,score,points,max_points,sandboxed,failures\n";

// Several shards' gradebooks into one, its rows by student. 0, or 2 when one cannot be read or written.
int merge_gradebooks(const std::vector<std::filesystem::path>& shards, const std::filesystem::path& into,
                     std::ostream& log);

// Grades every student on `exercises`, printing a line per student and exercise to `log`.
// Returns 0 when every student was graded and the files written (whatever their grades), 2 when
// the folder cannot be read or a file cannot be written.
int grade_class(const std::vector<const Spec*>& exercises, const GradeOptions& options,
                const ClassOptions& class_options, std::ostream& log);

// One student's grades: each exercise's file in STUDENT/NAME/ (or STUDENT/ itself when there is
// one exercise), or a grade saying it was not handed in.
std::vector<Grade> grade_student(const std::vector<const Spec*>& exercises, const std::filesystem::path& student,
                                 const GradeOptions& options);

// One CSV field, quoted where it needs to be.
std::string csv_field(const std::string& text);

// The course autograders' results.json for one student's grades (their seed left out: the
// hidden cases stay hidden).
std::string gradescope_json(const std::vector<Grade>& grades);

// PrairieLearn's external-grader results.json: gradable, score (0 to 1), message, output, and
// tests with name, points, max_points, message and output.
std::string prairielearn_json(const std::vector<Grade>& grades);

}  // namespace gpulab::grading
