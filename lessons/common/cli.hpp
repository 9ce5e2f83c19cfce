#pragma once
// The command-line front end every lesson executable shares.
//
// Exit codes: 0 every check passed, 1 a check failed or a run errored, 2 bad usage (unknown flag,
// variant or backend, a size or block size out of range, a size that does not fit in memory, an
// unwritable --json path).
#include <vector>

#include "common/lesson.hpp"

namespace gpulab {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

// `lessons`: every lesson (the registry), which the help and error texts name where they say which
// lessons offer a thread map, a timeline, training or a --shape.
int lesson_cli_main(const Lesson& lesson, const std::vector<const Lesson*>& lessons, int argc, const char* const* argv);

}  // namespace gpulab
