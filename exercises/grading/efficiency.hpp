#pragma once
// Efficiency graded without a GPU: the exercise's efficiency case (spec.hpp's Efficiency) run on
// the emulator with its memory counts — the same on every machine, run after run — each measure
// scored by the instructor's bands, with feedback in the learner's terms ("your loads use 12 % of
// each 32-byte sector: the lanes of a warp read addresses far apart").
#include <vector>

#include "grading/grading.hpp"

namespace gpulab::grading {

// One case per check of the spec's efficiency entry (none without one, or on the GPU backend,
// whose timed grading is the performance case). Not measured until every other case passed.
std::vector<CaseResult> grade_efficiency(const Spec& spec, const Reference& reference, const Built& built,
                                         const GradeOptions& options, const Grade& so_far);

}  // namespace gpulab::grading
