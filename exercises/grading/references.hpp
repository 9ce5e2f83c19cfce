#pragma once
// The float64 references the exercises are checked against (never a solution), by the name an
// exercise.json gives, with a bound per element that fits the arithmetic a correct float kernel
// does (as the lessons' own checks), and the inputs each wants.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "grading/spec.hpp"
#include "grading/submission.hpp"

namespace gpulab::grading {

struct Expected {
  std::vector<double> value;
  std::vector<double> bound;  // |got − value| <= bound passes; a NaN value wants NaN
};

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
