// The grader itself: every exercise's stub fails and its solution passes; every buggy submission
// (each exercise's buggy/) fails with the message its file expects (each check proven to fire);
// a class is graded into a gradebook without anything crashing; specs are read and refused
// with reasons; gpulab_grade refuses bad command lines. All on the emulator, so CI proves it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "base/text_file.hpp"
#include "grading/check.hpp"
#include "grading/gradebook.hpp"
#include "grading/grading.hpp"
#include "support/lesson_runs.hpp"
#include "support/process.hpp"

using namespace gpulab;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = GPULAB_SOURCE_DIR;

grading::GradeOptions emulated_options(std::uint64_t seed) {
  grading::GradeOptions o;
  o.backend = Backend::emulated;
  o.seed = seed;
  return o;
}

std::string read(const fs::path& p) { return read_text_file(p.string()).value_or(""); }

// The lines `// KEY: value` of a file.
std::vector<std::string> marked(const std::string& text, const std::string& key) {
  std::vector<std::string> found;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const std::string prefix = "// " + key + ": ";
    if (line.rfind(prefix, 0) == 0) found.push_back(line.substr(prefix.size()));
  }
  return found;
}

// The instructors' repository has every exercise's solution.cu; a student copy has none, and its
// learners' files may be half written: the tests that need the solutions say so and stop.
bool have_solutions() {
  const auto& all = grading::all_exercises();
  return std::all_of(all.begin(), all.end(), [](const grading::Spec& e) { return fs::exists(e.solution_file()); });
}
#define REQUIRE_SOLUTIONS()                                                                      \
  if (!have_solutions()) {                                                                       \
    WARN("a student copy (no lessons/*/exercises/*/solution.cu): not graded against solutions"); \
    return;                                                                                      \
  }

fs::path fresh_folder(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / (name + "-" + std::to_string(test::test_seed()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

}  // namespace

TEST_CASE("every exercise is found, its spec read, its files present", "[grading]") {
  const auto& all = grading::all_exercises();
  CHECK(all.size() >= 8);
  for (const auto& e : all) {
    CAPTURE(e.name);
    CHECK(fs::exists(e.learner_file()));
    if (have_solutions()) CHECK(fs::exists(e.solution_file()));
    CHECK(e.name.substr(0, 2) == e.lesson);
    CHECK(grading::cases_for(e, 1).size() >= 6);
  }
}

TEST_CASE("exercises are found beside their lessons and in a course's own folder, each file named from the root",
          "[grading]") {
  const fs::path root = fresh_folder("gpulab-exercise-layouts");
  const grading::Spec& model = *grading::find_exercise("01_vector_add");
  // GPU Lab's layout, lessons/NN_lesson/exercises/NAME/ with buggy/, and a course's, NAME/.
  const fs::path beside = root / "lessons/01_vector_add/exercises/01_vector_add";
  const fs::path own = root / "course/01_vector_add";
  for (const fs::path& folder : {beside, own}) {
    fs::create_directories(folder);
    fs::copy_file(model.folder / "exercise.json", folder / "exercise.json");
    fs::copy_file(model.learner_file(), folder / "exercise.cu");
  }
  fs::create_directories(beside / "buggy");
  for (const char* name : {"b.cu", "a.cu", "notes.txt"}) std::ofstream(beside / "buggy" / name) << "// expect: x\n";
  const auto lessons = grading::find_exercises(root / "lessons");
  REQUIRE(lessons.size() == 1);
  CHECK(lessons[0].shown_path() == "lessons/01_vector_add/exercises/01_vector_add/exercise.cu");
  CHECK(lessons[0].buggy_files() == std::vector<fs::path>{beside / "buggy/a.cu", beside / "buggy/b.cu"});
  const auto course = grading::find_exercises(root / "course");
  REQUIRE(course.size() == 1);
  CHECK(course[0].shown_path() == "course/01_vector_add/exercise.cu");
  CHECK(course[0].buggy_files().empty());
  fs::remove_all(root);
}

// Each stub and each solution is built and graded: in parts, which ctest runs side by side (each
// about half a minute on the 2-core machine CI runs on).
#define GPULAB_STUB_PART(k)                                                                              \
  TEST_CASE("every stub fails its grader and every solution passes it: part " #k " of 6", "[grading]") { \
    check_stubs_and_solutions(k - 1, 6);                                                                 \
  }

namespace {
void check_stubs_and_solutions(std::size_t part, std::size_t parts) {
  REQUIRE_SOLUTIONS();
  const std::uint64_t seed = test::test_seed();
  const auto& all = grading::all_exercises();
  for (std::size_t i = part; i < all.size(); i += parts) {
    const auto& e = all[i];
    CAPTURE(e.name, seed);
    const grading::Grade stub = grading::grade(e, e.learner_file(), emulated_options(seed));
    INFO(grading::report_text(stub));
    CHECK_FALSE(stub.passed);
    CHECK_FALSE(stub.skipped);
    const grading::Grade solution = grading::grade(e, e.solution_file(), emulated_options(seed));
    INFO(grading::report_text(solution));
    CHECK(solution.passed);
    CHECK(solution.score() == 1.0);
  }
}
}  // namespace

GPULAB_STUB_PART(1)
GPULAB_STUB_PART(2)
GPULAB_STUB_PART(3)
GPULAB_STUB_PART(4)
GPULAB_STUB_PART(5)
GPULAB_STUB_PART(6)
#undef GPULAB_STUB_PART

namespace {

// The corpus of buggy submissions (each exercise's buggy/*.cu, beside its solution), in a fixed
// order.
std::vector<std::pair<const grading::Spec*, fs::path>> buggy_submissions() {
  std::vector<std::pair<const grading::Spec*, fs::path>> all;
  for (const grading::Spec& e : grading::all_exercises()) {
    for (const fs::path& file : e.buggy_files()) all.emplace_back(&e, file);
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  return all;
}

// Submission i of the corpus, for i % parts == part: each is built and graded (a build and a
// run of every case, some to their time limit), so the corpus is graded in parts that ctest runs
// side by side.
void grade_buggy_submissions(std::size_t part, std::size_t parts) {
  const std::uint64_t seed = test::test_seed();
  const auto all = buggy_submissions();
  for (std::size_t i = part; i < all.size(); i += parts) {
    const auto& [e, file] = all[i];
    const std::string text = read(file);
    const auto expected = marked(text, "expect");
    CAPTURE(file.string(), seed);
    REQUIRE_FALSE(expected.empty());
    grading::GradeOptions options = emulated_options(seed);
    if (const auto limit = marked(text, "time-limit"); !limit.empty()) options.time_limit_s = std::stod(limit[0]);
    const grading::Grade g = grading::grade(*e, file, options);
    const std::string all_text = grading::report_json({g});
    INFO(grading::report_text(g));
    CHECK_FALSE(g.passed);
    // Every case ran, whatever happened (and the efficiency cases, measured or not).
    CHECK(g.cases.size() == grading::cases_for(*e, seed).size() + (e->efficiency ? e->efficiency->checks.size() : 0));
    for (const std::string& phrase : expected) {
      CAPTURE(phrase);
      CHECK(all_text.find(phrase) != std::string::npos);
    }
  }
}

}  // namespace

TEST_CASE("the corpus of buggy submissions has at least 15 files, each beside its exercise", "[grading]") {
  REQUIRE_SOLUTIONS();  // a student copy leaves them out with the solutions
  CHECK(buggy_submissions().size() >= 15);
}

// (Some run a case to its time limit, and the two slowest, never_steps.cu and
// one_buffer_in_place.cu, about 12 and 24 s here on a cold cache, are 24 files apart: ten parts
// keep them apart and each part well under a minute; eight put them in one, 59 s.)
#define GPULAB_BUGGY_PART(k)                                                                                    \
  TEST_CASE("each buggy submission fails, with the message its file expects: part " #k " of 10", "[grading]") { \
    grade_buggy_submissions(k - 1, 10);                                                                         \
  }
GPULAB_BUGGY_PART(1)
GPULAB_BUGGY_PART(2)
GPULAB_BUGGY_PART(3)
GPULAB_BUGGY_PART(4)
GPULAB_BUGGY_PART(5)
GPULAB_BUGGY_PART(6)
GPULAB_BUGGY_PART(7)
GPULAB_BUGGY_PART(8)
GPULAB_BUGGY_PART(9)
GPULAB_BUGGY_PART(10)
#undef GPULAB_BUGGY_PART

TEST_CASE("a class of three is graded into a gradebook: a solution, a stub, a wild write", "[grading][cli]") {
  REQUIRE_SOLUTIONS();
  const fs::path class_dir = fresh_folder("gpulab-class");
  const grading::Spec& conv = *grading::find_exercise("06_conv");
  const std::pair<const char*, fs::path> students[] = {{"alice", conv.solution_file()},
                                                       {"bob", conv.learner_file()},
                                                       {"carol", conv.folder / "buggy/writes_far_past_y.cu"}};
  for (const auto& [name, file] : students) {
    fs::create_directories(class_dir / name / "06_conv");
    fs::copy_file(file, class_dir / name / "06_conv/exercise.cu");
  }
  const fs::path book = class_dir / "grades.csv";
  const auto run =
      test::run_command(test::executable("gpulab_grade") + " --backend emulated --exercise 06_conv --submissions " +
                        class_dir.string() + " --gradebook " + book.string() + " --gradescope --seed 11");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const std::string csv = read(book);
  INFO(csv);
  CHECK_THAT(csv, Catch::StartsWith(grading::kGradebookHeader));
  CHECK_THAT(csv, Catch::Contains("alice,06_conv,yes,1.000,1.000,1,yes,\n"));
  CHECK(std::regex_search(csv, std::regex("bob,06_conv,no,0\\.[0-9]+,0\\.[0-9]+,1,yes,\"?[0-9]+ of 9 cases failed")));
  CHECK(std::regex_search(csv,
                          std::regex("carol,06_conv,no,.*memcheck.*Invalid __global__ write.*of 'y'.*past its end")));
  for (const auto& [name, file] : students) {
    CAPTURE(name);
    const auto results = nlohmann::json::parse(read(class_dir / name / "results.json"));
    CHECK(results.contains("score"));
    REQUIRE(results["tests"].size() == 9);
    for (const auto& t : results["tests"]) {
      CHECK(t["max_score"].get<double>() == Approx(1.0 / 9));
      CHECK(t.contains("name"));
      CHECK(t.contains("output"));
    }
    CHECK(read(class_dir / name / "results.json").find("\"seed\"") == std::string::npos);  // hidden cases stay hidden
  }
  CHECK(nlohmann::json::parse(read(class_dir / "alice/results.json"))["score"].get<double>() == Approx(1));
  fs::remove_all(class_dir);
}

TEST_CASE("a student who handed nothing in gets a row saying so", "[grading]") {
  const fs::path class_dir = fresh_folder("gpulab-empty-class");
  fs::create_directories(class_dir / "dave");
  std::stringstream log;
  const grading::ClassOptions options{class_dir, class_dir / "book.csv", false};
  CHECK(grading::grade_class({grading::find_exercise("01_vector_add")}, emulated_options(3), options, log) == 0);
  CHECK_THAT(read(class_dir / "book.csv"), Catch::Contains("dave,01_vector_add,no,0.000,0.000,1,yes,not handed in"));
  fs::remove_all(class_dir);
}

TEST_CASE("a file that does not compile fails every case with the compiler's message", "[grading]") {
  const fs::path dir = fresh_folder("gpulab-broken");
  std::ofstream(dir / "broken.cu") << "void vector_add(const float* a, const float* b, float* c, int n) { oops }\n";
  std::ofstream(dir / "wrong_signature.cu") << "void vector_add(float* a, float* b, float* c, int n) {}\n";
  const grading::Spec& e = *grading::find_exercise("01_vector_add");
  const grading::Grade broken = grading::grade(e, dir / "broken.cu", emulated_options(1));
  CHECK_FALSE(broken.passed);
  CHECK(broken.score() == 0);
  CHECK_THAT(broken.message, Catch::Contains("did not compile") && Catch::Contains("oops"));
  const grading::Grade signature = grading::grade(e, dir / "wrong_signature.cu", emulated_options(1));
  CHECK_THAT(signature.message, Catch::Contains("exactly these parameter types"));
  fs::remove_all(dir);
}

TEST_CASE("the random cases change with the seed, the fixed ones do not", "[grading]") {
  for (const auto& e : grading::all_exercises()) {
    CAPTURE(e.name);
    const auto a = grading::cases_for(e, 1), b = grading::cases_for(e, 2), again = grading::cases_for(e, 1);
    REQUIRE(a.size() == b.size());
    CHECK(a.front().sizes == b.front().sizes);
    CHECK(a.back().sizes == again.back().sizes);
    CHECK(a.back().sizes != b.back().sizes);
  }
}

TEST_CASE("where the wrong elements lie is said in the output's own terms", "[grading]") {
  const std::vector<std::pair<std::string, std::int64_t>> matrix = {{"row", 4}, {"column", 32}};
  std::vector<std::size_t> last_column, edge_tile, every_other;
  for (std::size_t r = 0; r < 4; ++r) last_column.push_back(r * 32 + 31);
  for (std::size_t r = 2; r < 4; ++r)
    for (std::size_t c = 16; c < 32; ++c) edge_tile.push_back(r * 32 + c);
  for (std::size_t c = 1; c < 32; c += 2) every_other.push_back(c);
  CHECK(grading::where_wrong(matrix, last_column) == "every row, column 31 (the last)");
  CHECK(grading::where_wrong(matrix, edge_tile) == "rows 2–3 (the last 2 of 4), columns 16–31 (the last 16 of 32)");
  CHECK(grading::where_wrong(matrix, every_other) == "row 0 (the first), every 2nd column from 1 to 31");
  std::vector<std::size_t> outside_corner;  // a grid rounded down both ways: right only in rows 0–1, columns 0–15
  for (std::size_t i = 0; i < 4 * 32; ++i)
    if (i / 32 >= 2 || i % 32 >= 16) outside_corner.push_back(i);
  CHECK(grading::where_wrong(matrix, outside_corner) ==
        "all but the top-left 2 × 16 corner: rows 2–3 (the last 2 of 4) and columns 16–31 (the last 16 of 32)");
  std::vector<std::size_t> last_row_and_column;  // an edge tile's barrier: the last row and the last column wrong
  for (std::size_t i = 0; i < 4 * 32; ++i)
    if (i / 32 == 3 || i % 32 == 31) last_row_and_column.push_back(i);
  CHECK(grading::where_wrong(matrix, last_row_and_column) ==
        "all but the top-left 3 × 31 corner: row 3 (the last) and column 31 (the last)");
}

TEST_CASE("a spec with a mistake is refused with the file and the reason", "[grading]") {
  const fs::path dir = fresh_folder("gpulab-spec");
  fs::create_directories(dir / "99_broken");
  std::ofstream(dir / "99_broken/exercise.json")
      << R"JSON({"lesson": "99", "title": "t", "task": "t", "reference": "vector_add",
            "entry": "void f(const float* a, float* c, int n)", "arrays": {"a": "n"}, "cases": [{"n": 1}]})JSON";
  CHECK_THROWS_WITH(grading::read_spec(dir / "99_broken"),
                    Catch::Contains("99_broken/exercise.json") && Catch::Contains("length of c"));
  CHECK(grading::evaluate("(H + 2 * pad - R) / stride + 1", {{"H", 10}, {"pad", 1}, {"R", 3}, {"stride", 2}}) == 5);
  CHECK_THROWS_WITH(grading::evaluate("n * m", {{"n", 1}}), Catch::Contains("no size called m"));
  fs::remove_all(dir);
}

TEST_CASE("gpulab_grade lists the exercises and refuses a bad command line", "[grading][cli]") {
  const std::string grade = test::executable("gpulab_grade");
  const auto list = test::run_command(grade + " --list");
  CHECK(list.exit_code == 0);
  CHECK_THAT(list.output, Catch::Contains("05_matmul/exercise.cu"));
  const auto unknown = test::run_command(grade + " --exercise 42");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.output, Catch::Contains("no exercise \"42\""));
  CHECK(test::run_command(grade + " --bogus").exit_code == 2);
  CHECK(test::run_command(grade + " --backend tpu").exit_code == 2);
  CHECK(test::run_command(grade + " --exercise 01,02 --file x.cu").exit_code == 2);
  CHECK(test::run_command(grade + " --gradebook g.csv").exit_code == 2);
}

TEST_CASE("gpulab_grade grades the solutions and a file of one's own", "[grading][cli]") {
  REQUIRE_SOLUTIONS();
  const std::string grade = test::executable("gpulab_grade") + " --backend emulated --exercise 04_sigmoid";
  const auto solution = test::run_command(grade + " --solutions");
  CHECK(solution.exit_code == 0);
  CHECK_THAT(solution.output, Catch::Contains("PASSED"));
  const auto bug = test::run_command(grade + " --file " +
                                     (grading::find_exercise("04_sigmoid")->folder / "buggy/unstable.cu").string());
  CHECK(bug.exit_code == 1);
  CHECK_THAT(bug.output, Catch::Contains("FAILED") && Catch::Contains("is NaN"));
}
