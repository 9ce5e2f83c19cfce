// The grader itself, whatever state the learner's files are in: it passes the lessons' own
// kernels, fails the planted bugs, draws new sizes from each seed, and reports in JSON; and
// gpulab_grade refuses bad command lines.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "grading/grading.hpp"
#include "support/lesson_runs.hpp"
#include "support/process.hpp"

using namespace gpulab;

namespace {

grading::Exercise with_variant(const std::string& lesson, const std::string& variant) {
  grading::Exercise e = *grading::find_exercise(lesson);
  e.variant = variant;
  return e;
}

}  // namespace

TEST_CASE("the grader passes each lesson's own kernel on the exercise's sizes", "[grading]") {
  const auto [lesson, variant] = GENERATE(table<std::string, std::string>({{"01", "blocks"},
                                                                           {"02", "grid_stride"},
                                                                           {"03", "coalesced"},
                                                                           {"04", "fused"},
                                                                           {"05", "shared_tiles"},
                                                                           {"06", "debug_fixed"},
                                                                           {"07", "layered"}}));
  const std::uint64_t seed = test::test_seed();
  CAPTURE(lesson, variant, seed);
  const grading::Grade g = grading::grade(with_variant(lesson, variant), Backend::emulated, seed);
  INFO(grading::report_text(g));
  CHECK(g.passed);
  CHECK_FALSE(g.skipped);
  CHECK(g.cases.size() >= 6);
}

TEST_CASE("the grader fails the planted bugs and says where", "[grading]") {
  const std::string bug = GENERATE("bug_shared_index", "bug_channels", "bug_barrier");
  const std::uint64_t seed = test::test_seed();
  CAPTURE(bug, seed);
  const grading::Grade g = grading::grade(with_variant("06", bug), Backend::emulated, seed);
  INFO(grading::report_text(g));
  CHECK_FALSE(g.passed);
  if (bug == std::string("bug_barrier")) {
    // The emulator's racecheck names the missing barrier where the kernel reads the tile.
    CHECK_THAT(g.message, Catch::Contains("racecheck") && Catch::Contains("Race reported between") &&
                              Catch::Contains("conv_debug.cu:"));
  } else {
    CHECK_THAT(g.message, Catch::Contains("output (image") && Catch::Contains("This size is there to catch"));
  }
}

TEST_CASE("a size the kernel cannot run fails the grade, it is not passed over", "[grading]") {
  // single_block launches one block of n threads: past 1024 elements it is refused.
  const grading::Grade g = grading::grade(with_variant("01", "single_block"), Backend::emulated, 7);
  CHECK_FALSE(g.passed);
  CHECK_THAT(g.message, Catch::Contains("could not run"));
}

TEST_CASE("the random sizes change with the seed, the fixed ones do not", "[grading]") {
  for (const auto& e : grading::all_exercises()) {
    CAPTURE(e.name);
    const auto a = e.cases(1), b = e.cases(2), again = e.cases(1);
    REQUIRE(a.size() == b.size());
    REQUIRE(a.size() >= 6);
    CHECK(a.front().problem.dims == b.front().problem.dims);
    CHECK(a.back().problem.dims == again.back().problem.dims);
    const bool differ = a.back().problem.dims != b.back().problem.dims || a.back().block != b.back().block ||
                        a.back().problem.n != b.back().problem.n;
    CHECK(differ);
  }
}

TEST_CASE("the JSON report holds each exercise's grade, message and seed", "[grading]") {
  grading::Grade g = grading::grade(with_variant("01", "blocks"), Backend::emulated, 99);
  grading::Grade skipped;
  skipped.exercise = "05_matmul";
  skipped.skipped = true;
  skipped.seed = 99;
  skipped.message = "not graded on the GPU";
  const auto report = nlohmann::json::parse(grading::report_json({g, skipped}));
  CHECK(report["passed"] == true);
  CHECK(report["seed"] == 99);
  REQUIRE(report["exercises"].size() == 2);
  const auto& first = report["exercises"][0];
  CHECK(first["exercise"] == "01_vector_add");
  CHECK(first["variant"] == "blocks");
  CHECK(first["passed"] == true);
  CHECK(first["seed"] == 99);
  CHECK(first["message"].get<std::string>().find("sizes passed") != std::string::npos);
  CHECK(first["cases"].size() == g.cases.size());
  CHECK(report["exercises"][1]["skipped"] == true);
}

TEST_CASE("gpulab_grade lists the exercises and refuses a bad command line", "[grading][cli]") {
  const auto list = test::run_command(test::executable("gpulab_grade") + " --list");
  CHECK(list.exit_code == 0);
  CHECK_THAT(list.output, Catch::Contains("exercises/05_matmul/matmul_exercise.cu"));
  const auto unknown = test::run_command(test::executable("gpulab_grade") + " --lesson 42");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.output, Catch::Contains("no exercise \"42\""));
  const auto flag = test::run_command(test::executable("gpulab_grade") + " --bogus");
  CHECK(flag.exit_code == 2);
  const auto backend = test::run_command(test::executable("gpulab_grade") + " --backend tpu");
  CHECK(backend.exit_code == 2);
  const auto two = test::run_command(test::executable("gpulab_grade") + " --lesson 01,02 --variant blocks");
  CHECK(two.exit_code == 2);
}

TEST_CASE("gpulab_grade grades a named variant: a planted bug fails, a lesson kernel passes", "[grading][cli]") {
  const std::string grade = test::executable("gpulab_grade") + " --backend emulated --lesson 06 --variant ";
  const auto bug = test::run_command(grade + "bug_channels");
  CHECK(bug.exit_code == 1);
  CHECK_THAT(bug.output, Catch::Contains("06_conv (variant bug_channels)") && Catch::Contains("FAILED"));
  const auto fixed = test::run_command(grade + "debug_fixed");
  CHECK(fixed.exit_code == 0);
  CHECK_THAT(fixed.output, Catch::Contains("PASSED"));
}
