#pragma once
// What a lesson is, for the harness, the executables and the app alike: its sizes, its variants
// (each on one or more backends), how it counts work, and how one run of a variant goes.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/backend.hpp"
#include "common/image_training.hpp"
#include "common/phase_times.hpp"
#include "common/thread_map.hpp"
#include "common/timeline.hpp"
#include "common/verify.hpp"

namespace gpulab {

// One point of a lesson's size axis. `n` is the size sweeps and plots use; `dims` names every
// size of the problem (for matmul: m, n, k).
struct Problem {
  std::int64_t n = 0;
  std::vector<std::pair<std::string, std::int64_t>> dims;
  // The size called `name`, or `otherwise` where the problem has none.
  std::int64_t dim(std::string_view name, std::int64_t otherwise) const {
    for (const auto& [key, value] : dims) {
      if (key == name) return value;
    }
    return otherwise;
  }
};

// The work of one run, to turn times into rates.
struct Counts {
  double flops = 0;      // floating-point operations of the compute phase
  double bytes = 0;      // the fewest bytes the compute phase must move through memory
  double h2d_bytes = 0;  // bytes copied host -> device per run (GPU backends)
  double d2h_bytes = 0;  // bytes copied device -> host per run
};

// Whether the work is arithmetic rather than memory traffic: more than 4 FLOPs per byte (the
// rates and ceilings to compare with are then GFLOP/s and the FP32 peak, not GB/s and the copy).
inline bool compute_bound(const Counts& c) { return c.bytes > 0 && c.flops / c.bytes > 4; }

// Memory a run at this size needs at its peak, to refuse sizes that cannot fit before trying.
struct Footprint {
  double host_bytes = 0;
  double device_bytes = 0;
};

struct RunOptions {
  int block = 256;         // threads per block, for variants that take it
  int reps = 20;           // timed repetitions
  int warmup = 3;          // untimed repetitions first
  std::uint64_t seed = 0;  // inputs are a function of (seed, size)
  // Emulated runs: count the first run's memory requests, sectors and bank conflicts
  // (emulator/observers/memory_counter.hpp); `count_warps` keeps each warp's too (the thread map's colours).
  bool count_memory = false, count_warps = false;
  // Emulated runs: the warm-up and timed repetitions run on the emulator's fast path (no checks:
  // emulator/observers/checker.hpp), after the first run, which is checked and checks the answer.
  bool fast_timing = true;
};

// One variant on one backend at one size, with its buffers allocated. The harness calls
// poison(), then upload(), compute() and download() (each timed apart), then check().
class Run {
 public:
  virtual ~Run() = default;
  virtual void poison() = 0;   // fill the output with kPoisonByte (never timed)
  virtual void upload() {}     // host -> device copies of the inputs
  virtual void compute() = 0;  // the kernel(s) or the CPU function
  virtual void download() {}   // device -> host copy of the output
  virtual CheckResult check() const = 0;
  // A run that times itself (the learner's exercise file, run in a process of its own): one
  // compute() does the first call, the warm-up and the timed calls, and own_times() has them.
  virtual bool times_itself() const { return false; }
  virtual std::vector<PhaseTimes> own_times() const { return {}; }
  virtual int block() const { return 0; }  // threads per block it launches (0: not a GPU launch)
  // Theoretical occupancy of its kernel at that block size, where the variant reports it.
  virtual std::optional<double> occupancy() const { return std::nullopt; }
  // A line the results should carry when the run passed (which algorithm a library picked).
  virtual std::string note() const { return {}; }
};

// A lesson's data for one size: inputs and the float64 reference. Lessons derive from it.
class Instance {
 public:
  virtual ~Instance() = default;
  Problem problem;  // the size it was made for (the registry fills it in)
};

using RunFactory = std::function<std::unique_ptr<Run>(const Instance&, const RunOptions&)>;

// Why a variant is not run at a problem on a backend, or nothing: the one way a lesson says so
// (the harness, the executables, the app and the tests skip such runs with the reason).
using SkipRule = std::function<std::optional<std::string>(const Problem& problem, Backend backend)>;

// Rules every lesson may use:
// past n, a run would take minutes (a naive CPU loop); the variant could run it;
inline SkipRule slow_past(std::int64_t n) {
  return [n](const Problem& p, Backend) -> std::optional<std::string> {
    if (p.n <= n) return std::nullopt;
    return "stops at n = " + std::to_string(n) + ": larger sizes would take minutes per run";
  };
}
// past n, the emulator would take minutes (it runs every GPU thread on the CPU);
inline SkipRule emulated_past(std::int64_t n) {
  return [n](const Problem& p, Backend backend) -> std::optional<std::string> {
    if (backend != Backend::emulated || p.n <= n) return std::nullopt;
    return "the emulator runs every GPU thread on the CPU: past n = " + std::to_string(n) +
           " it would take minutes; run it on a GPU, or choose a smaller n";
  };
}
// the variant does not apply to the problem, whatever the backend (Winograd to a 5 × 5 filter).
inline SkipRule unless_applies(std::function<std::optional<std::string>(const Problem&)> applies) {
  return [applies = std::move(applies)](const Problem& p, Backend) { return applies(p); };
}

struct Variant {
  std::string name;
  std::string description;  // one line
  std::vector<std::pair<Backend, RunFactory>> backends;
  // The variant's own work where it differs from the lesson's (an unfused version moves more).
  std::function<Counts(const Problem&)> counts = {};
  // The kernel launches a block shape of its own (its tiles fix it): the block size asked for
  // does not change it, so a block-size sweep runs it once.
  bool fixed_block = false;
  // When it is not run, and why (the first rule that gives a reason).
  std::vector<SkipRule> skips = {};
  // A kernel with a planted bug, for the debugging lesson: run only when asked for by name, and
  // its tests expect its check to fail. The description says what the bug is.
  bool deliberately_wrong = false;
  // The learner's own kernel (exercises/): `yours`. Graded by gpulab_grade, not by the lesson's
  // tests; like the planted bugs, "all" leaves it out until it is asked for by name.
  bool exercise = false;
  // Its arithmetic runs on the tensor cores, where the measured FP32 peak is no ceiling: no
  // "% of peak" for it (lesson 09 compares it with cuBLAS on the same cores instead).
  bool tensor_cores = false;
};

// ---- Capabilities: what a lesson opts into beyond its rows, each with the view that draws it

// Which block, thread and warp handled each element of a small launch, recorded on the GPU or
// emulated: --thread-map, and the app's Visualize view (visualize_view.cpp). Lessons 02, 03.
struct ThreadMapping {
  // `variant` picks the mapping where the lesson has several ("": its first).
  std::function<ThreadMap(std::int64_t n, int block, Backend backend, const std::string& variant)> record;
  std::int64_t max_n = 0;                  // the largest n a map is drawn for
  std::vector<std::string> variants = {};  // the mappings the app offers (empty: only the first)
};

// One run of a pipeline variant recorded on the GPU, span by span, beside the serial run of the
// same work (lesson 08), or one training step over several GPUs, phase by phase on each (lesson
// 10): --timeline, and the app's Visualize view for the pipelines.
struct Timelines {
  // `variant` "": the lesson's first that has one. Throws NotApplicable for a variant without one.
  std::function<Timeline(const Problem& problem, const std::string& variant, int block)> record;
  // The pipelines the app offers, as {variant, label} (none: the app shows no timeline), and a
  // timeline recorded on a reference GPU (a path in the data folder) it shows where there is no GPU.
  std::vector<std::pair<std::string, std::string>> variants = {};
  std::string recorded = {};
};

// A network trained by the lesson: from the command line (--train DATASET), and live in the app
// (the Visualize view: training_view.cpp for lesson 07's network, image_training_view.cpp for an
// image classifier). Lessons 07, 09, 10, 16.
struct Training {
  // The text --train prints. `variant` "" picks the fastest that fits; `epochs` 0 the dataset's
  // default. Throws std::invalid_argument for a request it cannot run.
  std::function<std::string(const std::string& dataset, const std::string& variant, Backend backend, int epochs)>
      report = {};
  bool live_network = false;  // the app trains the lesson's network live (loss, accuracy, boundary)
  // An image classifier trained live in the background on the backend (loss and accuracy curves,
  // test images with their predictions, the first layer's filters).
  std::function<std::unique_ptr<ImageTraining>(Backend backend)> live_images = {};
};

// Variants whose shared memory is drawn step by step (--steps, and the Visualize view:
// steps_view.cpp; common/shared_steps.hpp), recorded on the emulator at `problem` (an n, or a
// shape parse_shape reads) first, at most max_n. Lessons 13, 14, 15, 19.
struct SharedMemorySteps {
  std::vector<std::string> variants = {};
  std::string problem = {};
  std::int64_t max_n = 0;
  // What is drawn of the recording: the shared arrays barrier by barrier, or the online softmax
  // the block's warps carried tile by tile (lesson 19: common/online_softmax_steps.hpp).
  enum class Picture { shared_arrays, online_softmax };
  Picture picture = Picture::shared_arrays;
};

struct Result;  // common/results.hpp: one row of the results table

struct Lesson {
  // Set by the registry from the lesson's gpulab_add_lesson line (lessons/CMakeLists.txt): its
  // number, its name, its text (docs/lessons/NN-name.md), its part of the course, and its
  // kernels' folder at the end of `sources`.
  std::string id;         // "01"
  std::string name;       // "vector_add"
  std::string title;      // "Vector add"
  std::string summary;    // one line for lists
  std::string part;       // the part of the course it is in (lessons/CMakeLists.txt; the registry sets it)
  std::string text_file;  // the lesson's text, relative to the repository
  // What a learner reads in the Code view, a tab a file: files, or folders whose every source file
  // (.cu .cuh .cpp .hpp .inc) is shown. The first is the lesson's main kernel file; the lesson's
  // kernels' folder is added after what it lists.
  std::vector<std::string> sources;
  std::string size_help;  // what --n means: "elements per vector"
  std::int64_t default_n = 1;
  std::int64_t max_n = 1;
  std::vector<std::int64_t> sweep;
  std::vector<std::int64_t> test_sizes;  // awkward sizes every variant is tested at, on every backend
  // Where one size cannot say it (rectangular matrices): the problems tested instead of test_sizes.
  std::vector<Problem> test_problems;
  // The app's ladder chart: the variants' GFLOP/s as bars, this variant (a library) as the line to reach.
  std::string ladder_reference;
  std::function<Problem(std::int64_t n)> problem;
  // Optional: a problem from a --shape argument ("64x64x56x56:64:3x3"), throwing
  // std::invalid_argument with the reason; shape_help says the syntax.
  std::function<Problem(const std::string&)> parse_shape = {};
  std::string shape_help;
  std::function<Counts(const Problem&)> counts;
  std::function<Footprint(const Problem&)> footprint;
  std::function<std::unique_ptr<Instance>(const Problem&, std::uint64_t seed)> make_instance;
  // Optional: inputs at the edges of the arithmetic (±0, huge, NaN, ...) every variant must pass.
  std::function<std::unique_ptr<Instance>(std::uint64_t seed)> edge_instance = {};
  // What a lesson opts into beyond its table of rows: each capability set only where the lesson
  // has it (declared above Lesson, with the view of the app that draws it).
  std::optional<ThreadMapping> thread_map;
  std::optional<Timelines> timeline;
  std::optional<Training> training;
  std::optional<SharedMemorySteps> steps;
  // The profiling lesson: the app's Memory view shows the Nsight Compute profiles recorded for
  // every lesson's kernels (opened), not only this lesson's.
  bool reads_every_profile = false;
  // Optional, lesson 10: started by `mpirun`, every process but rank 0 follows rank 0's runs
  // here and returns its exit status; rank 0, every process of a --train run and a process not
  // started by mpirun get nullopt and go on with the command line. `gpu`: the GPU is asked for.
  std::function<std::optional<int>(int argc, const char* const* argv, bool training, bool gpu)> other_processes = {};
  // Optional: lines printed after the results table, read from all of it (lesson 10: each
  // several-GPU step's efficiency against the fastest one-GPU step).
  std::function<std::vector<std::string>(const std::vector<Result>&)> summary_notes = {};
  std::vector<Variant> variants;
};

// Adds `rule` to every variant of the lesson (a limit of the emulator's, say).
inline void skip_in_every_variant(Lesson& lesson, const SkipRule& rule) {
  for (Variant& v : lesson.variants) v.skips.push_back(rule);
}

// The emulated backend of a variant that needs what the emulator does not model (tensor cores,
// cuBLAS, cuDNN, cuFFT, NCCL): asked for, it is skipped with the reason.
inline RunFactory not_emulated(const std::string& needs) {
  return [needs](const Instance&, const RunOptions&) -> std::unique_ptr<Run> {
    throw NotApplicable("needs " + needs + ", which the emulator does not model: this variant runs on a GPU only");
  };
}

// Lets a lesson write its factories against its own Instance type.
template <typename LessonInstance, typename Make>
RunFactory factory(Make make) {
  return [make](const Instance& instance, const RunOptions& options) -> std::unique_ptr<Run> {
    return make(static_cast<const LessonInstance&>(instance), options);
  };
}

}  // namespace gpulab
