// Every variant of every lesson on one backend (GPULAB_TEST_BACKEND: cpu, gpu or emulated),
// against the lesson's CPU reference at the lesson's awkward sizes, on fresh random inputs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "common/results.hpp"
#include "common/session.hpp"
#include "emulator/observers/checker.hpp"
#include "registry.hpp"
#include "support/lesson_runs.hpp"

using namespace gpulab;

namespace {
const Backend kBackend = *parse_backend(GPULAB_TEST_BACKEND);

struct Case {
  std::string lesson, variant;
  Problem problem;
  int block = 0;  // 0: each of the block sizes check_variant tries
  // Emulated: the whole run on the emulator's fast path (a product of 10^9 multiply-adds, whose
  // answer is what is tested here; the checked mode has run each kernel at the smaller sizes).
  bool fast_path = false;
};

// The cases of the lessons whose ids are from `first` to `last` (all, without them).
std::vector<Case> cases(const std::string& first = "00", const std::string& last = "99") {
  std::vector<Case> all;
  for (const Lesson* lesson : all_lessons()) {
    if (lesson->id < first || lesson->id > last) continue;
    for (const std::string& name : test::variants_on(lesson->id, kBackend)) {
      for (const Problem& p : test::test_problems(*lesson)) all.push_back({lesson->id, name, p});
    }
  }
  return all;
}

const Variant& variant_of(const Case& c) {
  const Lesson* lesson = find_lesson(c.lesson);
  return *std::find_if(lesson->variants.begin(), lesson->variants.end(),
                       [&](const Variant& x) { return x.name == c.variant; });
}
}  // namespace

// One case on this backend at a block size, as the executables run it. (The lessons in several
// test cases, so that ctest runs them side by side, each well within its time limit.)
// Block sizes: a single warp, the usual 256, and one that is no multiple of a warp (once for
// kernels whose tiles fix their block).
std::vector<int> block_sizes() {
  return kBackend == Backend::cpu ? std::vector<int>{256} : std::vector<int>{32, 256, 1000};
}

void check_variant(const Case& c) {
  const int block = c.block != 0 ? c.block : GENERATE(from_range(block_sizes()));
  const std::uint64_t seed = test::test_seed();
  const std::string size = dims_text(c.problem);
  CAPTURE(c.lesson, c.variant, size, block, seed);
  if (variant_of(c).deliberately_wrong) return;  // the planted bugs: tested below
  if (variant_of(c).exercise) return;            // the learner's kernel: graded by gpulab_grade
  if (variant_of(c).fixed_block && block != 256) return;
  // A variant too slow for this size (or a backend for it) declines it, as the executables do.
  if (skip_reason(variant_of(c), kBackend, c.problem)) return;
  Measurement m;
  std::optional<emulated::check::UseLevel> fast_path;
  if (c.fast_path) fast_path.emplace(emulated::check::Level::off);
  try {
    m = test::run_variant(c.lesson, c.variant, kBackend, c.problem, block, seed);
  } catch (const NotApplicable& e) {
    // A run may decline only saying why: a library the emulator does not model (cuBLAS, ...),
    // and only there; or a launch CUDA refuses (one block of n > 1024 threads), with CUDA's words.
    INFO(e.what());
    const std::string why = e.what();
    const bool not_modelled =
        kBackend == Backend::emulated && why.find("the emulator does not model") != std::string::npos;
    CHECK((not_modelled || why.find("cannot launch. CUDA said: ") != std::string::npos));
    return;
  }
  INFO(m.first_check.message << m.final_check.message);
  CHECK(m.first_check.passed);
  CHECK(m.final_check.passed);
  CHECK_FALSE(m.samples.empty());
}

TEST_CASE("every variant matches its CPU reference at awkward sizes and block sizes: lessons 01 to 04", "[variants]") {
  check_variant(GENERATE(from_range(cases("01", "04"))));
}

// A lesson's cases in parts, each well under a minute: lesson 05's ladder takes most of the
// emulator's time (eight minutes of one core), in ten parts. Each case at each block size is one
// piece of work, estimated by its multiply-adds; the pieces go, largest first, to the part with
// the least so far.
std::vector<Case> part_of(const std::vector<Case>& all, std::size_t part, std::size_t parts) {
  std::vector<std::pair<double, Case>> pieces;
  for (const Case& c : all) {
    const Problem& p = c.problem;
    const double work = static_cast<double>(p.dim("m", p.n)) * static_cast<double>(p.dim("n", p.n)) *
                        static_cast<double>(p.dim("k", p.n));
    const bool one_block = variant_of(c).fixed_block;
    for (const int block : block_sizes()) {
      if (one_block && block != 256) continue;
      Case piece = c;
      piece.block = block;
      piece.fast_path = work >= 1e9;
      pieces.emplace_back(work, piece);
    }
  }
  std::stable_sort(pieces.begin(), pieces.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<double> load(parts, 0.0);
  std::vector<Case> mine;
  for (const auto& [work, piece] : pieces) {
    const auto least = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[least] += work + 1e6;  // (a small case still costs a launch and a check)
    if (least == part) mine.push_back(piece);
  }
  return mine;
}

// Part k of a lesson's cases (LESSON a string literal: "05").
#define GPULAB_LESSON_PART(LESSON, k, parts)                                                                       \
  TEST_CASE("every variant matches its CPU reference at awkward sizes and block sizes: lesson " LESSON " part " #k \
            " of " #parts,                                                                                         \
            "[variants]") {                                                                                        \
    const std::vector<Case> mine = part_of(cases(LESSON, LESSON), k - 1, parts);                                   \
    if (!mine.empty()) check_variant(GENERATE_COPY(from_range(mine)));                                             \
  }
GPULAB_LESSON_PART("05", 1, 10)
GPULAB_LESSON_PART("05", 2, 10)
GPULAB_LESSON_PART("05", 3, 10)
GPULAB_LESSON_PART("05", 4, 10)
GPULAB_LESSON_PART("05", 5, 10)
GPULAB_LESSON_PART("05", 6, 10)
GPULAB_LESSON_PART("05", 7, 10)
GPULAB_LESSON_PART("05", 8, 10)
GPULAB_LESSON_PART("05", 9, 10)
GPULAB_LESSON_PART("05", 10, 10)
// (Lesson 09's tensor-core rungs take most of the emulator's time after lesson 05's.)
GPULAB_LESSON_PART("09", 1, 2)
GPULAB_LESSON_PART("09", 2, 2)
#undef GPULAB_LESSON_PART

TEST_CASE("every variant matches its CPU reference at awkward sizes and block sizes: lesson 06", "[variants]") {
  check_variant(GENERATE(from_range(cases("06", "06"))));
}

// (In groups of about half a minute each on the 2-core machine CI runs on.)
TEST_CASE("every variant matches its CPU reference at awkward sizes and block sizes: lessons 07 and 08", "[variants]") {
  check_variant(GENERATE(from_range(cases("07", "08"))));
}

TEST_CASE("every variant matches its CPU reference at awkward sizes and block sizes: lessons 10 to 15", "[variants]") {
  check_variant(GENERATE(from_range(cases("10", "15"))));
}

TEST_CASE("every variant matches its CPU reference at awkward sizes and block sizes: lesson 16", "[variants]") {
  check_variant(GENERATE(from_range(cases("16", "16"))));
}

TEST_CASE("every variant matches its CPU reference at awkward sizes and block sizes: lessons 17 to 19", "[variants]") {
  check_variant(GENERATE(from_range(cases("17", "99"))));
}

// The debugging lesson's kernels with a planted bug: the tests must catch each one, at some
// awkward size (a bug that only shows at C > 1 passes the C = 1 problems). On a GPU a missing
// barrier may happen to give the right answer: compute-sanitizer's racecheck is what finds it
// (tools/gpu-check.sh runs it), so there it is only run.
TEST_CASE("every planted bug fails its check at some test problem", "[variants]") {
  std::vector<std::pair<std::string, std::string>> planted;
  for (const Lesson* lesson : all_lessons()) {
    for (const Variant& v : lesson->variants) {
      const bool on_backend =
          std::any_of(v.backends.begin(), v.backends.end(), [](const auto& b) { return b.first == kBackend; });
      if (v.deliberately_wrong && on_backend) planted.emplace_back(lesson->id, v.name);
    }
  }
  if (planted.empty()) return;
  const auto [lesson_id, name] = GENERATE_COPY(from_range(planted));
  const std::uint64_t seed = test::test_seed();
  CAPTURE(lesson_id, name, seed);
  const Lesson& lesson = *find_lesson(lesson_id);
  std::string caught;
  for (const Problem& p : test::test_problems(lesson)) {
    try {
      const Measurement m = test::run_variant(lesson_id, name, kBackend, p, 256, seed);
      if (!m.first_check.passed) {
        caught = dims_text(p) + ": " + m.first_check.message;
        break;
      }
    } catch (const std::exception& e) {  // the emulator's checked mode reported it (a race)
      caught = dims_text(p) + ": " + e.what();
      break;
    }
  }
  INFO(caught);
  if (kBackend == Backend::gpu && name.find("barrier") != std::string::npos) return;
  CHECK_FALSE(caught.empty());
}

TEST_CASE("every variant gets the edges of the arithmetic right (±0, huge, infinite, NaN)", "[variants]") {
  std::vector<Case> edge_cases;
  std::set<std::pair<std::string, std::string>> taken;  // a case per variant (its first problem's)
  for (const Case& c : cases()) {
    // (The learner's kernel meets the edges in its grader; a planted bug is tested above.)
    if (find_lesson(c.lesson)->edge_instance && !variant_of(c).exercise && !variant_of(c).deliberately_wrong &&
        taken.insert({c.lesson, c.variant}).second)
      edge_cases.push_back(c);
  }
  if (edge_cases.empty()) return;  // no lesson has edge inputs
  const Case c = GENERATE_COPY(from_range(edge_cases));
  const std::uint64_t seed = test::test_seed();
  CAPTURE(c.lesson, c.variant, seed);
  const auto instance = find_lesson(c.lesson)->edge_instance(seed);
  const Measurement m = test::run_variant_on(c.lesson, c.variant, kBackend, *instance, 128);
  INFO(m.first_check.message);
  CHECK(m.first_check.passed);
  CHECK(m.final_check.passed);
}
