#pragma once
// Nsight Compute profiles recorded on a reference GPU (tools/record-profiles.py writes
// assets/profiles/LESSON-VARIANT.json): what the profiling lesson reads, for learners without a GPU.
#include <string>
#include <utility>
#include <vector>

namespace gpulab::app {

struct ProfileMetric {
  std::string name, unit, value;
};

struct Profile {
  std::string lesson, variant, kernel, device, driver, ncu, recorded, command;
  std::vector<std::pair<std::string, std::vector<ProfileMetric>>> sections;  // in the file's order
  const std::vector<ProfileMetric>* section(const std::string& name) const;
};

// Every profile in `data_dir`/assets/profiles, by file name; a file that is not one is left out
// and named in `errors`.
std::vector<Profile> load_profiles(const std::string& data_dir, std::vector<std::string>& errors);

}  // namespace gpulab::app
