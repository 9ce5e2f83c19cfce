#pragma once
// Runs a lesson's selected variants and backends over sizes: the loop the executables and the
// app share. Results arrive one by one through the callbacks, so a caller can show them live.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/lesson.hpp"
#include "common/results.hpp"

namespace gpulab {

struct Selection {
  std::vector<std::int64_t> sizes;
  std::vector<Problem> problems;      // run these instead of the sizes (a lesson's --shape)
  std::vector<std::string> variants;  // names; empty means all
  std::vector<Backend> backends;
  RunOptions options;
  // Block sizes to run every kernel variant with (a block-size sweep); empty: options.block.
  std::vector<int> blocks;
  // Emulation is slow and its times are CPU times: the executables run fewer repetitions there
  // unless asked for more.
  std::optional<int> emulated_reps, emulated_warmup;
};

struct RunCallbacks {
  std::function<void(const Result&)> on_result;
  std::function<void(const std::string&)> on_note;  // one line, e.g. why GPU rows were skipped
  std::function<bool()> cancelled;
};

// The problems a selection runs: its problems, or the lesson's problem at each size.
std::vector<Problem> selected_problems(const Lesson& lesson, const Selection& selection);

// Why a variant does not run at this size on this backend (too slow there, or it does not
// apply to the problem), or nothing.
std::optional<std::string> skip_reason(const Variant& variant, Backend backend, const Problem& problem);

std::vector<Result> run_lesson(const Lesson& lesson, const Selection& selection, const RunCallbacks& callbacks = {});

// The (variant, backend) pairs a selection runs, in the lesson's order.
std::vector<std::pair<const Variant*, Backend>> selected_runs(const Lesson& lesson, const Selection& selection);

}  // namespace gpulab
