#pragma once
// An exercise's spec (exercise.json in its folder): the entry point the learner's file defines,
// the sizes of its arrays, the cases it is graded at, the float64 reference it is checked
// against, and its hints. The format is documented in exercises/README.md.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpulab::grading {

// One parameter of the entry point: an array (device memory) or a number passed by value.
struct Param {
  std::string type;  // as written, without const: "float*", "int", "unsigned int*"
  std::string name;
  bool pointer = false;
  bool is_const = false;
  std::string element;  // an array's element type: "float", "int", "unsigned int"
  // Arrays: read (const), written (not const), or both ("inout" in the spec: updated in place).
  bool input = false, output = false;
  std::string size;   // an array's length, an expression of the sizes ("rows * cols")
  bool host = false;  // pinned host memory ("host" in the spec), not device memory
};

// Integer sizes by name; an expression over them: + - * / % (integer), parentheses, numbers,
// min(a, b), max(a, b). Throws std::invalid_argument naming what it could not read.
using Sizes = std::map<std::string, std::int64_t>;
std::int64_t evaluate(const std::string& expression, const Sizes& sizes);

struct Case {
  Sizes sizes;          // every size the entry point takes, and the derived ones
  std::string catches;  // the mistake it is there to catch
  std::string inputs;   // "values" in the spec: "random" (default), or a set the reference offers ("edge")
  bool drawn = false;   // drawn from the seed
};

// A random case: each size drawn uniformly from its range.
struct RandomCases {
  int count = 0;
  std::map<std::string, std::pair<std::int64_t, std::int64_t>> ranges;
  // Sizes drawn as one of a list (an odd filter width: [1, 3, 5]).
  std::map<std::string, std::vector<std::int64_t>> choices;
};

// Optional performance grading on the GPU: one case timed (after the checks passed), its rate
// against the device's measured peak, scored by the instructor's bands.
struct Performance {
  Case at;            // the sizes it is timed at
  std::string bytes;  // the least bytes it must move (an expression): rated against the copy bandwidth
  std::string flops;  // or its arithmetic: rated against the FP32 peak
  // {fraction of the peak, score}, best first: [[0.6, 1], [0.3, 0.5]] gives full marks from 60 %.
  std::vector<std::pair<double, double>> bands;
};

// Optional efficiency grading without a GPU: one case run on the emulator with its memory counts
// (Nsight Compute's, emulator/observers/memory_counts.hpp), each measure scored by the instructor's bands.
// Measures: global_load_efficiency and global_store_efficiency (the share of each 32-byte sector
// fetched that the threads used, 0 to 1: higher is better); global_load_traffic (bytes of sectors
// loaded ÷ the bytes of the input arrays: how often each input is fetched; lower is better);
// shared_bank_conflicts (extra shared-memory passes per shared request; lower is better).
struct EfficiencyCheck {
  std::string measure;
  bool lower_is_better = false;
  // {bound, score}, best first: "at_least": [[0.8, 1], [0.4, 0.5]], or "at_most": [[4, 1], [16, 0.5]].
  std::vector<std::pair<double, double>> bands;
};
struct Efficiency {
  Case at;
  std::vector<EfficiencyCheck> checks;
};

struct Spec {
  std::filesystem::path folder;  // lessons/01_vector_add/exercises/01_vector_add
  std::filesystem::path root;    // the folder the exercises were found under: lessons/
  std::string name;              // the folder's name: "01_vector_add"
  std::string lesson;            // "01" (the lesson whose text and Run view it belongs to)
  std::string title;
  std::string task;      // what to write, one line
  std::string entry;     // the signature, as the learner's file must define it
  std::string function;  // the entry point's name
  std::vector<Param> params;
  // Sizes computed from others, in order ("P": "(H + 2*pad - R) / stride + 1").
  std::vector<std::pair<std::string, std::string>> derived;
  // Where each output lies, for messages: its dimensions by name, outermost first (["rows", "cols"]).
  std::map<std::string, std::vector<std::string>> layout;
  std::string reference;  // a float64 reference by name (references.hpp)
  double tolerance = 1;   // a factor on the reference's bounds (they fit its arithmetic already)
  // Element-wise: output i is made from element i of each input (its message names them).
  bool elementwise = false;
  // What to suspect when an output element was never written; {name} is replaced by that size.
  std::string unwritten;
  std::vector<Case> cases;
  RandomCases random;
  double points = 1;           // its weight in a class's grade (the instructor's; equal by default)
  double time_limit_s = 60;    // per case
  double memory_limit_gb = 4;  // per case, host memory of its process
  std::vector<std::string> hints;
  // The exercise as its lesson's variant `yours` (the Run view, the executables): each of its
  // sizes from the lesson's problem ("rows": "rows"; "n" is the problem's n). Empty: no variant.
  std::vector<std::pair<std::string, std::string>> run;
  // The float64 reference's work at a case, an expression of the sizes ("m * n * k"): the variant
  // `yours` is not run where it would take the reference minutes. Empty: cheap at any size.
  std::string run_cost;
  std::optional<Performance> performance;
  std::optional<Efficiency> efficiency;
  std::string file = "exercise.cu";  // the learner's file in the folder
  std::string solution = "solution.cu";

  std::filesystem::path learner_file() const { return folder / file; }
  std::filesystem::path solution_file() const { return folder / solution; }
  // The submissions that must fail, each saying why (`// expect:`): buggy/*.cu, in name order.
  std::vector<std::filesystem::path> buggy_files() const;
  // The learner's file as the repository names it: lessons/05_matmul/exercises/05_matmul/exercise.cu.
  std::string shown_path() const;
  // Where every exercise lies: `root`, or for a spec read on its own, its folder's parent.
  std::filesystem::path exercises_root() const { return root.empty() ? folder.parent_path() : root; }
  const Param* param(const std::string& name) const;
};

// Reads and checks a spec; throws std::invalid_argument with the file and what is wrong.
Spec read_spec(const std::filesystem::path& folder);

// Every exercise under `root`, in name order: each folder holding an exercise.json, either a
// lesson's (root/LESSON/exercises/NAME/: GPU Lab's own, beside their lesson) or root's own
// (root/NAME/: a course's folder of exercises). A broken spec throws (an instructor's typo must
// not hide an exercise).
std::vector<Spec> find_exercises(const std::filesystem::path& root);

// The cases of a grading run: the fixed ones, then the random ones drawn from `seed`, each
// with its derived sizes filled in.
std::vector<Case> cases_for(const Spec& spec, std::uint64_t seed);

// Fills in a case's derived sizes.
void complete_sizes(const Spec& spec, Case& c);

// What a case is, in the learner's terms: "n = 1031" or "rows = 3, cols = 100".
std::string case_label(const Spec& spec, const Case& c);

}  // namespace gpulab::grading
