#pragma once
// Reads back what format_json wrote: recorded reference runs (assets/results/) and any results
// file a learner opens in the app. A file that is not one gives a message, never a crash.
#include <stdexcept>
#include <string>

#include "common/results.hpp"

namespace gpulab {

class BadResultsFile : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws BadResultsFile naming what is wrong ("results[3].backend: 'tpu' is not a backend").
Report parse_json_report(const std::string& text);
Report read_json_report(const std::string& path);  // adds the path to the message

}  // namespace gpulab
