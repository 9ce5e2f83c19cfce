#pragma once
// Grading the classroom exercises: each lesson's variant `yours` against the lesson's float64 CPU
// reference (never against a solution), at sizes chosen to catch the usual mistakes and at sizes
// drawn fresh from a seed on every run, with what went wrong said in the learner's terms.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/backend.hpp"
#include "common/lesson.hpp"

namespace gpulab::grading {

// One size an exercise is graded at, and the mistake it is there to catch.
struct GradeCase {
  Problem problem;
  int block = 256;
  std::string catches;       // "n not a multiple of the block: a missing bounds guard"
  bool edge_inputs = false;  // the lesson's edge inputs (±0, ±inf, NaN, ...) instead of random ones
};

struct Exercise {
  std::string lesson;  // "01"
  std::string name;    // "01_vector_add"
  std::string file;    // the learner's file, relative to the repository
  std::string task;    // what to write, one line
  // The sizes to grade at: fixed ones, then some drawn from `seed` (a solution cannot know them).
  std::function<std::vector<GradeCase>(std::uint64_t seed)> cases = {};
  // Where output element `index` is, in the lesson's terms ("row 3, column 17"); empty: "element i".
  std::function<std::string(std::size_t index, const Problem&)> where = {};
  // What to suspect when an element was never written, for this size and block.
  std::function<std::string(const Problem&, int block)> unwritten = {};
  // The variant graded: the learner's, except where the grader's own tests grade a lesson kernel.
  std::string variant = "yours";
};

// Every exercise, in lesson order.
const std::vector<Exercise>& all_exercises();
// By lesson id ("01") or name ("01_vector_add"); nullptr when there is none.
const Exercise* find_exercise(std::string_view id);

struct CaseResult {
  std::string size;  // "n = 1000" or the lesson's shape
  int block = 0;
  bool passed = false;
  std::string message;  // empty when passed
};

struct Grade {
  std::string exercise, lesson, file;
  std::string variant = "yours";  // the variant graded
  Backend backend = Backend::emulated;
  std::uint64_t seed = 0;
  bool passed = false;
  bool skipped = false;  // the backend cannot run here (no GPU): neither passed nor failed
  std::string message;   // the first failure in the learner's terms, or the summary of a pass
  std::vector<CaseResult> cases;
};

// Runs every case of `exercise` on `backend` (gpu or emulated). `progress` hears each case as it
// ends; `cancelled` is polled between cases (the app's Cancel).
Grade grade(const Exercise& exercise, Backend backend, std::uint64_t seed,
            const std::function<void(const CaseResult&)>& progress = {}, const std::function<bool()>& cancelled = {});

// The report for a course's own tools: {"passed", "backend", "seed", "exercises": [{"exercise",
// "variant", "lesson", "file", "passed", "skipped", "message", "seed", "backend", "cases": [...]}]}.
std::string report_json(const std::vector<Grade>& grades);

// What the terminal shows for one exercise: a line per size, the first failure in full.
std::string report_text(const Grade& grade);

}  // namespace gpulab::grading
