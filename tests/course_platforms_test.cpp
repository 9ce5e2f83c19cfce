// The course platforms' entry points (tools/course/): Gradescope's run_autograder and
// PrairieLearn's grade.sh, each run in a temporary folder laid out as the platform lays it, for a
// right, a wrong, a non-compiling and a missing submission; their results.json checked against
// the fields each platform documents. And Gradescope's zip: what it holds, and no solution.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/text_file.hpp"
#include "support/lesson_runs.hpp"
#include "support/process.hpp"

using namespace gpulab;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = GPULAB_SOURCE_DIR;

std::string read(const fs::path& p) { return read_text_file(p.string()).value_or(""); }

struct Submission {
  const char* name;
  const char* file;  // under tests/class/, or "" for none handed in
  bool full_marks;
  const char* says;  // in some test's output
};
const Submission kSubmissions[] = {{"right", "right.cu", true, "passed"},
                                   {"wrong", "wrong.cu", false, "never written"},
                                   {"broken", "does_not_compile.cu", false, "expected"},
                                   {"missing", "", false, "not handed in"}};

fs::path fresh_root(const std::string& name) {
  const fs::path root = fs::temp_directory_path() / (name + "-" + std::to_string(test::test_seed()));
  fs::remove_all(root);
  fs::create_directories(root);
  return root;
}

std::string grade_path() {
  std::string quoted = test::executable("gpulab_grade");
  return quoted.substr(1, quoted.size() - 2);  // unquoted, for an environment variable
}

// Gradescope's documented fields: score; tests with score, max_score, name, output, visibility.
void check_gradescope(const nlohmann::json& r, const Submission& s) {
  REQUIRE(r.contains("score"));
  REQUIRE(r["score"].is_number());
  REQUIRE(r["tests"].is_array());
  REQUIRE_FALSE(r["tests"].empty());
  double most = 0;
  std::string outputs;
  for (const auto& t : r["tests"]) {
    CHECK(t["name"].is_string());
    CHECK(t["score"].is_number());
    CHECK(t["max_score"].is_number());
    CHECK(t["output"].is_string());
    CHECK((t["visibility"] == "visible" || !t.contains("visibility")));
    most += t["max_score"].get<double>();
    outputs += t["output"].get<std::string>();
  }
  CHECK(most == Approx(1));
  CHECK(r["score"].get<double>() == Approx(s.full_marks ? 1.0 : 0.0));
  CHECK_THAT(outputs, Catch::Contains(s.says));
}

// PrairieLearn's: gradable, score from 0 to 1, message, output; tests with name, points,
// max_points, message, output.
void check_prairielearn(const nlohmann::json& r, const Submission& s) {
  REQUIRE(r["gradable"].is_boolean());
  CHECK(r["gradable"] == true);
  REQUIRE(r["score"].is_number());
  CHECK(r["score"].get<double>() >= 0);
  CHECK(r["score"].get<double>() <= 1);
  CHECK(r["score"].get<double>() == Approx(s.full_marks ? 1.0 : 0.0));
  CHECK(r["message"].is_string());
  CHECK(r["output"].is_string());
  std::string outputs;
  for (const auto& t : r["tests"]) {
    CHECK(t["name"].is_string());
    CHECK(t["points"].is_number());
    CHECK(t["max_points"].is_number());
    CHECK(t["message"].is_string());
    CHECK(t["output"].is_string());
    outputs += t["output"].get<std::string>();
  }
  CHECK_THAT(outputs + r["message"].get<std::string>(), Catch::Contains(s.says));
}

}  // namespace

TEST_CASE("Gradescope's run_autograder grades a fake /autograder into valid results.json", "[grading][course]") {
  for (const Submission& s : kSubmissions) {
    CAPTURE(s.name);
    const fs::path root = fresh_root(std::string("gpulab-gradescope-") + s.name);
    fs::create_directories(root / "source");
    fs::create_directories(root / "submission");
    fs::create_directory_symlink(kSource, root / "source/gpulab");
    std::ofstream(root / "source/exercises.txt") << "01_vector_add\n";
    if (*s.file != '\0') fs::copy_file(kSource / "tests/class" / s.file, root / "submission/exercise.cu");
    const auto run = test::run_command("env GPULAB_AUTOGRADER_ROOT=" + root.string() + " GPULAB_GRADE=" + grade_path() +
                                       " bash " + (kSource / "tools/course/gradescope/run_autograder").string());
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    check_gradescope(nlohmann::json::parse(read(root / "results/results.json")), s);
    fs::remove_all(root);
  }
}

TEST_CASE("PrairieLearn's grade.sh grades a fake /grade into valid results.json", "[grading][course]") {
  for (const Submission& s : kSubmissions) {
    CAPTURE(s.name);
    const fs::path root = fresh_root(std::string("gpulab-prairielearn-") + s.name);
    fs::create_directories(root / "student");
    fs::create_directories(root / "tests");
    std::ofstream(root / "tests/exercise") << "01_vector_add\n";
    if (*s.file != '\0') fs::copy_file(kSource / "tests/class" / s.file, root / "student/exercise.cu");
    const auto run = test::run_command("env GPULAB_PL_ROOT=" + root.string() + " GPULAB_GRADE=" + grade_path() +
                                       " bash " + (kSource / "tools/course/prairielearn/grade.sh").string());
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    check_prairielearn(nlohmann::json::parse(read(root / "results/results.json")), s);
    fs::remove_all(root);
  }
}

TEST_CASE("Gradescope's zip holds the entry points and a student copy without solutions", "[grading][course]") {
  if (!fs::exists(kSource / ".git")) {
    WARN("not a git checkout: the zip is made from the committed tree");
    return;
  }
  const fs::path dir = fresh_root("gpulab-gradescope-zip");
  const auto made = test::run_command("bash " + (kSource / "tools/course/gradescope/make-zip.sh").string() +
                                      " 01_vector_add,05_matmul " + (dir / "autograder.zip").string());
  INFO(made.output);
  REQUIRE(made.exit_code == 0);
  const auto listed = test::run_command(
      "python3 -c \"import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))\" " +
      (dir / "autograder.zip").string());
  REQUIRE(listed.exit_code == 0);
  for (const char* name :
       {"setup.sh", "run_autograder", "exercises.txt", "gpulab/lessons/05_matmul/exercises/05_matmul/exercise.json",
        "gpulab/lessons/05_matmul/exercises/05_matmul/exercise.cu"}) {
    CAPTURE(name);
    CHECK_THAT(listed.output, Catch::Contains(name));
  }
  CHECK_THAT(listed.output, !Catch::Contains("/solution.cu\n"));
  fs::remove_all(dir);
}
