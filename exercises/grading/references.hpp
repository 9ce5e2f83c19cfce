#pragma once
// The float64 references the exercises are checked against (never a solution), by the name an
// exercise.json gives, with a bound per element that fits the arithmetic a correct float kernel
// does (as the lessons' own checks), and the inputs each wants.
#include <cstdint>
#include <functional>
#include <map>
#include <random>
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
  std::string what;  // one line for the README's list: "c = a + b"
  // Values for the input arrays of a case (`inputs` names the set: "random", or one the reference
  // offers, such as "edge"). Default: uniform in [-1, 1], rounded to the array's type.
  std::function<void(const Spec&, const Case&, std::mt19937_64&, CaseData&)> inputs = {};
  std::vector<std::string> input_sets = {"random"};
  std::function<std::map<std::string, Expected>(const CaseData&)> compute;
};

// Every reference, by name; nullptr when there is none.
const Reference* find_reference(const std::string& name);
const std::vector<Reference>& all_references();

// A case's inputs: the reference's own way, or uniform in [-1, 1] (rounded to each array's type).
CaseData make_case_data(const Spec& spec, const Reference& reference, const Case& c, std::uint64_t seed);

}  // namespace gpulab::grading
