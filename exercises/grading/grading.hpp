#pragma once
// Grading an exercise: the learner's file (or a student's submission) is built with the grading
// driver, and each case runs in a process of its own with a time and a memory limit, its outputs
// checked against the float64 reference (never a solution). A crash, a hang, a CUDA error or a
// checked-mode (or compute-sanitizer) report is that case's failure with its report; the other
// cases still run, and the report is always written.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/backend.hpp"
#include "grading/references.hpp"
#include "grading/spec.hpp"
#include "grading/submission.hpp"

namespace gpulab::grading {

// lessons/ of this GPU Lab, whose lessons hold their exercises (GPULAB_EXERCISES overrides it).
std::filesystem::path exercises_root();
// Every exercise there, in name order (a broken exercise.json throws std::invalid_argument).
const std::vector<Spec>& all_exercises();
// By name ("01_vector_add") or lesson ("01": its first exercise); nullptr when there is none.
const Spec* find_exercise(std::string_view id);
// The exercises of one lesson.
std::vector<const Spec*> exercises_of_lesson(std::string_view lesson);

struct GradeOptions {
  Backend backend = Backend::emulated;  // gpu or emulated
  std::uint64_t seed = 0;
  std::filesystem::path cache;  // builds (default: ~/.cache/gpulab/grade)
  // On the GPU: compute-sanitizer tools each case also runs under when its numbers pass
  // ("memcheck", "racecheck"); the emulator's checked mode is always on.
  std::vector<std::string> sanitizers;
  double time_limit_s = 0;  // per case; 0: the exercise's own
  // Also time the exercise's performance case where its spec has one (the GPU only).
  bool performance = false;
};

struct CaseResult {
  std::string label;    // "n = 1031" — what was checked
  std::string catches;  // the mistake the case is there to catch
  bool drawn = false;   // sizes drawn from the seed
  bool empty = false;   // no output element to write (n = 0): earns nothing unless another case passes
  bool passed = false;
  std::string message;  // what went wrong, in the learner's terms
  std::string report;   // the checked mode's or compute-sanitizer's report, the program's output
  double score = -1;    // a part of a point (the performance case's band); -1: 1 if passed, else 0
  double rate = -1;     // the performance case's GB/s or GFLOP/s (a leaderboard's value); -1: none
  std::string rate_unit;
};

struct Grade {
  std::string exercise, title, lesson, file;
  Backend backend = Backend::emulated;
  std::uint64_t seed = 0;
  bool passed = false;
  bool skipped = false;   // the backend cannot run here (no GPU, no nvcc): neither passed nor failed
  bool handed_in = true;  // false: a class's student had no file for it (scored 0 of its points)
  bool sandboxed = true;  // every case ran in a sandbox of its own (sandbox.hpp)
  double points = 1;      // the exercise's weight (its spec's "points")
  std::string message;    // the first failure, or a summary of the pass
  std::string build_log;
  std::vector<CaseResult> cases;
  // The fraction of cases passed (0 when it did not build); an empty case counts only when a
  // case with outputs passed too.
  double score() const;
  double case_score(const CaseResult& c) const;  // 0 to 1, by the same rule
};

// Grades `file` (the exercise's own file when empty). `progress` hears each case as it ends;
// `cancelled` is polled between cases (the app's Cancel).
Grade grade(const Spec& spec, const std::filesystem::path& file, const GradeOptions& options,
            const std::function<void(const CaseResult&)>& progress = {}, const std::function<bool()>& cancelled = {});

// What one run of a case says: passed, or what went wrong (a crash, a hang, a CUDA error, a
// checked-mode report, wrong outputs), with its report. Label and catches are the caller's.
CaseResult judge(const Spec& spec, const Reference& reference, const CaseData& data, const ChildResult& run,
                 const Limits& limits);

// The JSON report: {"passed", "backend", "seed", "exercises": [{"exercise", "title", "lesson",
// "file", "backend", "seed", "passed", "skipped", "score", "message", "build_log", "cases": [{"size",
// "catches", "passed", "message", "report"}]}]}.
std::string report_json(const std::vector<Grade>& grades);

// What the terminal shows for one exercise: a line per case, the first failure in full.
std::string report_text(const Grade& grade);

// The first report of the emulator's checked mode or compute-sanitizer in a program's output
// (its "=========" lines), at most `lines` lines; empty when there is none.
std::string first_report(const std::string& output, std::size_t lines = 14);

}  // namespace gpulab::grading
