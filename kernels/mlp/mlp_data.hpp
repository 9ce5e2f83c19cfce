#pragma once
// Small 2-D classification datasets generated from a seed (the same points on every machine):
// inputs in roughly [-1, 1]², labels 0 or 1.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpulab::mlp {

enum class Dataset { xor_quadrants, moons, circles, spirals };

struct Data {
  int count = 0;
  std::vector<float> x;  // count × 2
  std::vector<float> y;  // count labels, 0 or 1
};

// `noise`: the standard deviation of Gaussian noise added to every point.
Data make_dataset(Dataset kind, int count, std::uint64_t seed, float noise = 0.05f);
const char* dataset_name(Dataset kind);  // "xor", "moons", "circles", "spirals"
std::optional<Dataset> parse_dataset(const std::string& name);

}  // namespace gpulab::mlp
