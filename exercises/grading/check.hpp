#pragma once
// Comparing what a learner's kernel left in its outputs with the float64 reference, and saying
// what is wrong where a learner can act on it: which output, the first wrong element with the
// inputs that made it, where the wrong elements lie (edge rows, a tile, one channel, a stride),
// and what a never-written element suggests.
#include <map>
#include <string>
#include <vector>

#include "grading/references.hpp"
#include "grading/spec.hpp"
#include "grading/submission.hpp"

namespace gpulab::grading {

struct OutputCheck {
  std::string name;
  std::size_t checked = 0, wrong = 0, unwritten = 0;
};

struct CaseCheck {
  bool passed = false;
  std::string message;  // empty when passed
  std::vector<OutputCheck> outputs;
};

// `launch_stopped`: the checked mode stopped a launch at an error, so elements never written say
// nothing about the grid (the spec's `unwritten` hint is left out).
CaseCheck check_outputs(const Spec& spec, const CaseData& data, const std::map<std::string, std::vector<double>>& got,
                        const std::map<std::string, Expected>& expected, bool launch_stopped = false);

// Where the wrong elements of an output lie, in its layout's terms ("columns 16–30 (the last 15
// of 31), every row"); `wrong` holds flat indices in increasing order.
std::string where_wrong(const std::vector<std::pair<std::string, std::int64_t>>& dims,
                        const std::vector<std::size_t>& wrong);

// An output's dimensions, outermost first, as {label, extent}: from the spec's layout
// ("row:rows" → {"row", rows}), or one dimension {"element", length}.
std::vector<std::pair<std::string, std::int64_t>> dims_of(const Spec& spec, const std::string& output,
                                                          const Sizes& sizes);

}  // namespace gpulab::grading
