#pragma once
// Runs one variant of a lesson through the same factories and measuring path as the executables.
#include <cstdint>
#include <string>

#include "common/measure.hpp"
#include "registry.hpp"

namespace gpulab::test {

// Throws NotApplicable when the variant cannot run this size.
Measurement run_variant(const std::string& lesson_id, const std::string& variant, Backend backend, std::int64_t n,
                        int block = 256, std::uint64_t seed = 12345);

// The same at any problem of the lesson (a rectangular matrix product, say).
Measurement run_variant(const std::string& lesson_id, const std::string& variant, Backend backend,
                        const Problem& problem, int block = 256, std::uint64_t seed = 12345);

// The problems every variant of a lesson is tested at: its test_problems, else its test_sizes.
std::vector<Problem> test_problems(const Lesson& lesson);

// The same on a given instance (a lesson's edge inputs, say).
Measurement run_variant_on(const std::string& lesson_id, const std::string& variant, Backend backend,
                           const Instance& instance, int block = 256);

// The names of a lesson's variants that run on `backend`.
std::vector<std::string> variants_on(const std::string& lesson_id, Backend backend);

// Fresh inputs on every test run (printed by the test that uses it, to replay a failure).
std::uint64_t test_seed();

}  // namespace gpulab::test
