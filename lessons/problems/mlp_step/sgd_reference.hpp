#pragma once
// One step of gradient descent, w − η·g, element by element (the grader's sgd_update exercise;
// lesson 07's step does it for every weight): two roundings, each within u of what it rounds.
#include "problems/expected.hpp"

namespace gpulab::mlp_step {

inline constexpr float kExerciseRate = 0.05f;  // the exercise's η, a float as the kernel has it

inline double sgd_update(double w, double g, double rate) { return w - rate * g; }
inline double sgd_update_bound(double w, double g, double rate) {
  return 2 * kFloatUnit * (std::abs(w) + std::abs(rate * g)) + kTinyBound;
}

}  // namespace gpulab::mlp_step
