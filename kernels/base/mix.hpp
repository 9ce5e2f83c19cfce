#pragma once
// SplitMix64's finaliser: a strong 64-bit mix, cheap enough to call once per element. Every
// seeded draw in GPU Lab (the inputs, a network's parameters, the training sets) is a pure
// function of (seed, index) through it, so a run replays from its printed seed.
#include <cstdint>

namespace gpulab {

constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A draw uniform in [0, 1) from 64 mixed bits (their top 53: every double of the grid 2^-53).
constexpr double unit_draw(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

}  // namespace gpulab
