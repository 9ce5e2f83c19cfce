#include "mlp/mlp_data.hpp"

#include <cmath>
#include <numbers>

#include "base/mix.hpp"

namespace gpulab::mlp {

namespace {

// Draw k of point i: uniform in [0, 1), a pure function of (seed, i, k).
double uniform(std::uint64_t seed, int i, int k) {
  return unit_draw(mix64(mix64(seed) + static_cast<std::uint64_t>(i) * 8 + static_cast<std::uint64_t>(k)));
}

double gaussian(std::uint64_t seed, int i, int k) {  // Box–Muller
  const double u1 = std::max(uniform(seed, i, k), 1e-300), u2 = uniform(seed, i, k + 1);
  return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
}

}  // namespace

Data make_dataset(Dataset kind, int count, std::uint64_t seed, float noise) {
  Data d;
  d.count = count;
  d.x.resize(static_cast<std::size_t>(count) * 2);
  d.y.resize(static_cast<std::size_t>(count));
  constexpr double pi = std::numbers::pi;
  for (int i = 0; i < count; ++i) {
    const int label = i % 2;  // balanced classes, interleaved
    const double u = uniform(seed, i, 0), v = uniform(seed, i, 1);
    double px = 0, py = 0;
    switch (kind) {
      case Dataset::xor_quadrants:
        px = 2 * u - 1;
        py = (2 * v - 1);
        py = (px > 0) == (label == 1) ? -std::abs(py) : std::abs(py);  // label 1: the quadrants of opposite signs
        break;
      case Dataset::moons: {  // two interleaved half circles, centred and scaled to about [-1, 1]
        const double a = pi * u;
        px = label == 0 ? std::cos(a) : 1 - std::cos(a);
        py = label == 0 ? std::sin(a) : 0.5 - std::sin(a);
        px = (px - 0.5) / 1.5;
        py = (py - 0.25) / 1.5 * 2;
        break;
      }
      case Dataset::circles: {  // label 1 inside (radius 0.4), 0 outside (radius 0.9)
        const double a = 2 * pi * u, r = label == 1 ? 0.4 : 0.9;
        px = r * std::cos(a);
        py = r * std::sin(a);
        break;
      }
      case Dataset::spirals: {  // two arms, one and a half turns each
        const double s = 0.1 + 0.9 * u, a = 3 * pi * s + pi * label;
        px = s * std::cos(a);
        py = s * std::sin(a);
        break;
      }
    }
    d.x[static_cast<std::size_t>(i) * 2] = static_cast<float>(px + noise * gaussian(seed, i, 2));
    d.x[static_cast<std::size_t>(i) * 2 + 1] = static_cast<float>(py + noise * gaussian(seed, i, 4));
    d.y[static_cast<std::size_t>(i)] = static_cast<float>(label);
  }
  return d;
}

const char* dataset_name(Dataset kind) {
  switch (kind) {
    case Dataset::xor_quadrants:
      return "xor";
    case Dataset::moons:
      return "moons";
    case Dataset::circles:
      return "circles";
    case Dataset::spirals:
      return "spirals";
  }
  return "?";
}

std::optional<Dataset> parse_dataset(const std::string& name) {
  for (Dataset d : {Dataset::xor_quadrants, Dataset::moons, Dataset::circles, Dataset::spirals}) {
    if (name == dataset_name(d)) return d;
  }
  return std::nullopt;
}

}  // namespace gpulab::mlp
