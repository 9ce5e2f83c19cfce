#pragma once
// A kernel's shared memory step by step, from the emulator's real execution (emulator/
// shared_steps.hpp): a variant run once on the emulator at a small size, one block of each of
// its launches recorded — every thread's reads and writes between barriers and the arrays when
// each barrier fell. `--steps` prints it; the app's Visualize view draws it.
#include <cstdint>
#include <string>
#include <vector>

#include "common/lesson.hpp"
#include "emulator/observers/shared_steps.hpp"

namespace gpulab {

struct StepRecording {
  std::string variant;
  Problem problem;
  std::vector<emulated::shared_steps::Trace> traces;  // one a launch that used shared memory
};

// Runs `variant` on the emulator at `problem` (inputs from `seed`) and records block `block` of
// each launch. Throws std::invalid_argument for a variant without an emulated run, or one the
// problem skips, and std::runtime_error when its check fails (the picture would show a wrong run).
StepRecording record_shared_steps(const Lesson& lesson, const std::string& variant, const Problem& problem,
                                  std::uint64_t seed, std::uint64_t block = 0);

// The problem a text names: an n, or a shape the lesson's parse_shape reads ("4096:90"); throws
// std::invalid_argument with the reason (past steps_max_n too).
Problem steps_problem_of(const Lesson& lesson, const std::string& text);

// What thread `thread` did to array `array` in phase `phase`: the elements it read (with their
// values) and those it wrote.
struct StepOperation {
  std::uint32_t thread = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> reads, writes;  // (element, bits)
};
// The operations of one phase on one array, by thread, threads in order.
std::vector<StepOperation> operations_in(const emulated::shared_steps::Trace& trace, std::uint32_t phase,
                                         std::uint32_t array);

// The element of `array` written most often in `phase`, and how often: more than once only by
// atomics, each waiting for the one before it (contention).
struct Hottest {
  std::uint32_t element = 0;
  std::size_t writes = 0;
};
Hottest hottest_in(const emulated::shared_steps::Trace& trace, std::uint32_t phase, std::uint32_t array);

// The array the trace's picture shows: the one with the most accesses.
std::uint32_t main_array(const emulated::shared_steps::Trace& trace);

// A value as its type prints: "1.25" for a float, "17" for an int.
std::string format_step_value(std::uint32_t bits, const std::string& type);

// The recording as text: per launch and phase, what the first `elements` elements held and which
// threads wrote them from what.
std::string format_shared_steps(const StepRecording& recording, std::size_t elements = 32);

}  // namespace gpulab
