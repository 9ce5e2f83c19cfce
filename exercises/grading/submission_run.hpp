#pragma once
// An exercise as its lesson's variant `yours`: the learner's file as it is saved, built by the
// grader (no rebuild of GPU Lab) and run in a process of its own at the lesson's size — so the
// Run view and the executables pick up an edit as the Grade button does, and a crash or a hang
// in it is that run's failure, not the app's. The process times the calls itself, with the
// lessons' own repetition and clock (lessons/common/phase_times.hpp, event_clock.hpp: the same
// events, phases and stream hold as every other row), and its outputs are checked against the
// grader's float64 reference.
#include <string>
#include <vector>

#include "common/lesson.hpp"

namespace gpulab::grading {

// The variants of the lesson's exercises that say how the lesson's problem sizes them ("run" in
// exercise.json): `yours` for the first, `yours_<rest of its name>` for the others.
std::vector<Variant> exercise_variants(const Lesson& lesson);

}  // namespace gpulab::grading
