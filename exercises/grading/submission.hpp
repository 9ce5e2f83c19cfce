#pragma once
// A learner's file, built with the grading driver (driver.hpp) into a program of its own, and one
// case of it run in a child process with a time and a memory limit: whatever the learner's code
// does — a wild write, a crash, a hang — is that case's result, and the caller goes on.
#include <array>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "grading/spec.hpp"

namespace gpulab::grading {

struct Built {
  bool ok = false;
  std::filesystem::path program;
  std::string log;       // the compilers' messages on the learner's file
  bool refused = false;  // it compiled, but included what a submission may not (log: what)
};

// Builds `file` (the learner's, a solution, a student's submission) for the spec's entry point,
// for the GPU or for the emulator; cached by content under `cache`.
Built build_submission(const Spec& spec, const std::filesystem::path& file, bool gpu,
                       const std::filesystem::path& cache);

// One case's data: its sizes and every array the entry point reads, as doubles (holding exactly
// the values of the array's own type: the reference sees what the kernel sees).
struct CaseData {
  Sizes sizes;
  std::map<std::string, std::vector<double>> arrays;
};

struct Limits {
  double seconds = 60;
  double memory_gb = 4;
  bool gpu = false;  // the program runs on the GPU: its sandbox holds the device files
};

struct ChildResult {
  bool finished = false;   // exited by itself
  int exit_code = 0;       // when finished
  int signal = 0;          // when a signal ended it (a crash, or the time limit's kill)
  bool timed_out = false;  // killed at the time limit
  bool outputs_read = false;
  bool sandboxed = false;  // it ran in a sandbox of its own (sandbox.hpp)
  double seconds = 0;      // how long it ran
  std::string output;      // its stdout and stderr together (the emulator's checked-mode reports)
  std::map<std::string, std::vector<double>> outputs;       // after the first call
  std::map<std::string, std::vector<double>> last_outputs;  // after the last timed call (reps > 0)
  // Per timed call (ms): copies in, the call, copies out, end to end (lessons/common/phase_times.hpp).
  std::vector<std::array<double, 4>> times;
};

// Runs the built program on one case. `wrapper` goes before it on the command line
// (compute-sanitizer and its options); `reps` > 0 also times that many calls after `warmup`.
ChildResult run_case(const Spec& spec, const std::filesystem::path& program, const CaseData& data, const Limits& limits,
                     int warmup = 0, int reps = 0, const std::vector<std::string>& wrapper = {});

}  // namespace gpulab::grading
