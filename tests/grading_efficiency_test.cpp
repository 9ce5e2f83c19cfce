// Efficiency graded without a GPU (exercises/grading/efficiency.hpp): the same right answer
// scored by how it uses memory, from the emulator's counts — 03_matrix_add's row-major threads
// against column-major ones, 05_matmul's shared-memory tiles against the naive kernel.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "grading/grading.hpp"

using namespace gpulab;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = GPULAB_SOURCE_DIR;

// The grade's efficiency cases; every other case must have passed (the answers are right).
std::vector<grading::CaseResult> efficiency_of(const grading::Grade& g) {
  std::vector<grading::CaseResult> found;
  for (const auto& c : g.cases) {
    if (c.label.rfind("efficiency:", 0) == 0) {
      found.push_back(c);
    } else {
      CAPTURE(c.label, c.message);
      CHECK(c.passed);
    }
  }
  return found;
}

grading::Grade graded(const std::string& exercise, const fs::path& file) {
  grading::GradeOptions o;
  o.backend = Backend::emulated;
  o.seed = 17;
  return grading::grade(*grading::find_exercise(exercise), file, o);
}

}  // namespace

TEST_CASE("03_matrix_add: row-major threads earn the efficiency marks, column-major ones do not, and hear why",
          "[grading][efficiency]") {
  const grading::Spec& spec = *grading::find_exercise("03_matrix_add");
  if (!fs::exists(spec.solution_file())) return;  // a student copy
  const auto rows = efficiency_of(graded("03_matrix_add", spec.solution_file()));
  const auto columns = efficiency_of(graded("03_matrix_add", kSource / "tests/efficiency/03_column_major.cu"));
  REQUIRE(rows.size() == 2);
  REQUIRE(columns.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CAPTURE(rows[i].message, columns[i].message);
    CHECK(rows[i].score == 1);
    CHECK(columns[i].score == 0);
    CHECK_THAT(rows[i].message, Catch::Contains("use 100 % of each 32-byte sector"));
    CHECK_THAT(columns[i].message, Catch::Contains("use 12 % of each 32-byte sector") &&
                                       Catch::Contains("threadIdx.x along a row, not down a column"));
  }
}

TEST_CASE("05_matmul: shared-memory tiles earn the efficiency marks, the naive kernel does not, and hears why",
          "[grading][efficiency]") {
  const grading::Spec& tiled_spec = *grading::find_exercise("05_matmul");
  const fs::path naive = grading::find_exercise("05_matmul_naive")->solution_file();
  if (!fs::exists(tiled_spec.solution_file()) || !fs::exists(naive)) return;  // a student copy
  const auto tiled = efficiency_of(graded("05_matmul", tiled_spec.solution_file()));
  const auto plain = efficiency_of(graded("05_matmul", naive));
  REQUIRE(tiled.size() == 1);
  REQUIRE(plain.size() == 1);
  CAPTURE(tiled[0].message, plain[0].message);
  CHECK(tiled[0].score == 1);
  CHECK(plain[0].score == 0);
  CHECK_THAT(plain[0].message, Catch::Contains("each input element is read about 64 times") &&
                                   Catch::Contains("a tile kept in shared memory"));
}
