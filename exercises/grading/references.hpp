#pragma once
// The float64 references the exercises are checked against (never a solution), by the name an
// exercise.json gives: each its problem's reference and bound from lessons/problems/ (what the
// lesson checks its own kernels against), and the inputs the exercise wants.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "grading/spec.hpp"
#include "grading/submission.hpp"
#include "problems/expected.hpp"

namespace gpulab::grading {

// A problem's reference values and bounds (lessons/problems/expected.hpp): |got − value| <= bound
// passes; a NaN value wants NaN.
using gpulab::Expected;

struct Reference {
  std::string name;
  // Values for the input arrays of a case (the case's `inputs` names the set: "random", or one the
  // reference offers, such as "edge"), drawn from `seed`. Default: uniform in [-1, 1], rounded to
  // the array's type.
  std::function<void(const Case&, std::uint64_t seed, CaseData&)> inputs = {};
  std::function<std::map<std::string, Expected>(const CaseData&)> compute;
};

// A reference by name; nullptr when there is none.
const Reference* find_reference(const std::string& name);

// A case's inputs: the reference's own way, or uniform in [-1, 1] (rounded to each array's type).
CaseData make_case_data(const Spec& spec, const Reference& reference, const Case& c, std::uint64_t seed);

}  // namespace gpulab::grading
