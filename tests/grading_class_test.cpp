// A class that tries the grader (tests/class/): thirteen students — right, wrong, tampering with
// the grades, computing on the host, including the solution, not compiling, misnamed, hanging,
// leaving early with a fake "All tests passed.", an untouched stub and one who handed nothing in —
// graded with gpulab_grade as a course would, into a gradebook and each student's results.json.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "base/text_file.hpp"
#include "grading/grading.hpp"
#include "grading/sandbox.hpp"
#include "support/lesson_runs.hpp"
#include "support/process.hpp"

using namespace gpulab;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = GPULAB_SOURCE_DIR;

std::string read(const fs::path& p) { return read_text_file(p.string()).value_or(""); }

struct ExpectedGrades {
  bool passed = false;
  std::string phrase;  // in the failure's message
};

// The first line of a class file: "// grade: passed" or "// grade: failed — PHRASE".
ExpectedGrades expected_of(const std::string& text) {
  const std::string line = text.substr(0, text.find('\n'));
  ExpectedGrades e;
  e.passed = line == "// grade: passed";
  const std::string dash = "failed — ";
  if (const auto at = line.find(dash); at != std::string::npos) e.phrase = line.substr(at + dash.size());
  return e;
}

// The gradebook's rows by student: the fields after the student's name.
std::map<std::string, std::string> rows_of(const std::string& csv) {
  std::map<std::string, std::string> rows;
  std::stringstream in(csv);
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    const auto comma = line.find(',');
    rows[line.substr(0, comma)] += line.substr(comma + 1) + "\n";
  }
  return rows;
}

}  // namespace

TEST_CASE("a class of thirteen that tries the grader gets the grades its code earned, and nothing it rewrote",
          "[grading][cli][class]") {
  if (!grading::sandbox_support().available) {
    WARN("no sandbox here (" << grading::sandbox_support().why_not << "): the tampering students would succeed");
    return;
  }
  const fs::path class_dir = fs::temp_directory_path() / ("gpulab-class13-" + std::to_string(test::test_seed()));
  fs::remove_all(class_dir);
  std::map<std::string, ExpectedGrades> expected;
  for (const auto& entry : fs::directory_iterator(kSource / "tests/class")) {
    if (entry.path().extension() != ".cu") continue;
    const std::string student = entry.path().stem().string();
    std::string text = read(entry.path());
    for (auto at = text.find("@SOURCE@"); at != std::string::npos; at = text.find("@SOURCE@"))
      text.replace(at, 8, kSource.string());
    const fs::path folder = class_dir / student / "01_vector_add";
    fs::create_directories(folder);
    std::ofstream(folder / (student == "misnamed" ? "add.cu" : "exercise.cu")) << text;
    expected[student] = expected_of(text);
  }
  fs::create_directories(class_dir / "stub/01_vector_add");
  fs::copy_file(grading::find_exercise("01_vector_add")->learner_file(), class_dir / "stub/01_vector_add/exercise.cu");
  expected["stub"] = {false, "c["};
  fs::create_directories(class_dir / "absent");
  expected["absent"] = {false, "not handed in"};
  REQUIRE(expected.size() == 13);

  const fs::path book = class_dir / "grades.csv";
  const auto run = test::run_command(test::executable("gpulab_grade") +
                                     " --backend emulated --exercise 01_vector_add --time-limit 2 --seed 21 --jobs 2 "
                                     "--submissions " +
                                     class_dir.string() + " --gradebook " + book.string() + " --gradescope");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  // The tampering student's leftover process would strike now, after the grader has exited.
  std::this_thread::sleep_for(std::chrono::seconds(3));

  const std::string csv = read(book);
  INFO(csv);
  CHECK(csv.rfind("student,exercise,passed,score,points,max_points,sandboxed,failures\n", 0) == 0);
  const auto rows = rows_of(csv);
  CHECK(rows.size() == 13);
  for (const auto& [student, want] : expected) {
    CAPTURE(student);
    REQUIRE(rows.count(student) == 1);
    const std::string& row = rows.at(student);
    CHECK(std::count(row.begin(), row.end(), '\n') == 1);  // one row: nobody added one
    CHECK(row.rfind(want.passed ? "01_vector_add,yes,1.000,1.000,1,yes," : "01_vector_add,no,", 0) == 0);
    CHECK(row.find(",yes,") != std::string::npos);  // sandboxed
    if (!want.passed) CHECK_THAT(row, Catch::Contains(want.phrase));
    const auto results = nlohmann::json::parse(read(class_dir / student / "results.json"));
    CHECK(results["score"].get<double>() == Approx(want.passed ? 1.0 : results["score"].get<double>()));
    if (!want.passed) CHECK(results["score"].get<double>() < 1.0);
    CHECK(results["tests"].size() == (student == "absent" || student == "misnamed" ? 1u : 9u));
  }
  CHECK_FALSE(fs::exists(class_dir / "tampers/01_vector_add/TAMPERED"));
  // An untouched stub passes only the empty case, which earns nothing alone.
  CHECK(nlohmann::json::parse(read(class_dir / "stub/results.json"))["score"] == 0);
  CHECK_THAT(rows.at("misnamed"), Catch::Contains("found add.cu"));
  const std::string compile_output = read(class_dir / "does_not_compile/results.json");
  CHECK_THAT(compile_output, Catch::Contains("expected"));  // the compiler's own message
  const std::string fake = read(class_dir / "fake_pass/results.json");
  CHECK_THAT(fake, Catch::Contains("What your program printed") && Catch::Contains("All tests passed."));
  fs::remove_all(class_dir);
}

TEST_CASE("a class graded in two shards and merged gives the gradebook one run gives", "[grading][cli][class]") {
  const fs::path class_dir = fs::temp_directory_path() / ("gpulab-shards-" + std::to_string(test::test_seed()));
  fs::remove_all(class_dir);
  for (const char* student : {"right", "wrong", "tampers", "host_computes"}) {
    fs::create_directories(class_dir / "class" / student / "01_vector_add");
    fs::copy_file(kSource / "tests/class" / (std::string(student) + ".cu"),
                  class_dir / "class" / student / "01_vector_add/exercise.cu");
  }
  fs::create_directories(class_dir / "class/absent");
  const std::string grade = test::executable("gpulab_grade") +
                            " --backend emulated --exercise 01_vector_add --time-limit 1 --seed 5 --submissions " +
                            (class_dir / "class").string();
  const auto whole = test::run_command(grade + " --jobs 2 --gradebook " + (class_dir / "whole.csv").string());
  REQUIRE(whole.exit_code == 0);
  for (const char* shard : {"1", "2"}) {
    const auto part = test::run_command(grade + " --shard " + shard + "/2 --gradebook " +
                                        (class_dir / ("part-" + std::string(shard) + ".csv")).string());
    INFO(part.output);
    REQUIRE(part.exit_code == 0);
    CHECK_THAT(part.output, Catch::Contains("shard " + std::string(shard) + " of 2"));
  }
  const auto merged =
      test::run_command(test::executable("gpulab_grade") + " --merge " + (class_dir / "part-1.csv").string() + " " +
                        (class_dir / "part-2.csv").string() + " --gradebook " + (class_dir / "merged.csv").string());
  INFO(merged.output);
  REQUIRE(merged.exit_code == 0);
  CHECK(read(class_dir / "merged.csv") == read(class_dir / "whole.csv"));
  CHECK(rows_of(read(class_dir / "merged.csv")).size() == 5);
  fs::remove_all(class_dir);
}
