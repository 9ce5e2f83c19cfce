#include "common/cli.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "base/device_info.hpp"
#include "common/cli_print.hpp"
#include "common/crossover.hpp"
#include "common/memory_check.hpp"
#include "common/online_softmax_steps.hpp"
#include "common/peaks.hpp"
#include "common/random.hpp"
#include "common/session.hpp"
#include "common/shared_steps.hpp"
#include "common/version.hpp"
#include "emulator/observers/memory_counter.hpp"
#include "emulator/runtime/device.hpp"

namespace gpulab {

namespace {

// A usage error: the message is printed with the program's name and the exit code is 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::optional<std::int64_t> n;
  std::vector<std::int64_t> sizes;
  std::vector<std::string> shapes;
  bool sweep = false;
  std::optional<int> block;
  std::vector<int> blocks;
  bool thread_map = false;
  bool timeline = false;
  bool steps = false;
  std::string train;
  std::optional<int> epochs;
  std::vector<std::string> variants{"all"};
  std::vector<std::string> backends{"all"};
  std::optional<int> reps;
  std::optional<int> warmup;
  std::optional<std::uint64_t> seed;
  bool csv = false;
  std::string json;
  bool list = false;
  bool memory_report = false;
};

std::string join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string command_line(int argc, const char* const* argv) {
  std::vector<std::string> words(argv, argv + argc);
  return join(words, " ");
}

void print_list(const Lesson& lesson) {
  fmt::print("Lesson {}: {} — {}\n\nVariants:\n", lesson.id, lesson.title, lesson.summary);
  for (const Variant& v : lesson.variants) {
    std::vector<std::string> backends;
    for (const auto& [b, make] : v.backends) backends.emplace_back(to_string(b));
    fmt::print("  {:<22} [{}] {}\n", v.name, join(backends, ","), v.description);
  }
  std::vector<std::string> sweep;
  for (auto n : lesson.sweep) sweep.push_back(std::to_string(n));
  fmt::print("\n--n is {}; default {}, at most {}.\n--sweep runs n = {}\n", lesson.size_help, lesson.default_n,
             lesson.max_n, join(sweep, ", "));
  if (lesson.parse_shape) fmt::print("--shape: {}\n", lesson.shape_help);
}

std::vector<std::int64_t> resolve_sizes(const Lesson& lesson, const Options& o) {
  std::vector<std::int64_t> sizes = o.sweep            ? lesson.sweep
                                    : !o.sizes.empty() ? o.sizes
                                                       : std::vector{o.n.value_or(lesson.default_n)};
  for (std::int64_t n : sizes) {
    if (n < 1 || n > lesson.max_n) {
      throw UsageError(
          fmt::format("size {} is out of range: n must be between 1 and {} ({})", n, lesson.max_n, lesson.size_help));
    }
  }
  return sizes;
}

std::vector<Problem> resolve_shapes(const Lesson& lesson, const Options& o) {
  std::vector<Problem> problems;
  if (o.shapes.empty()) return problems;
  if (!lesson.parse_shape) throw UsageError(fmt::format("lesson {} takes no --shape; use --n", lesson.id));
  for (const std::string& text : o.shapes) {
    try {
      problems.push_back(lesson.parse_shape(text));
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("--shape '{}': {} ({})", text, e.what(), lesson.shape_help));
    }
  }
  return problems;
}

std::vector<std::string> resolve_variants(const Lesson& lesson, const Options& o) {
  std::vector<std::string> valid;
  for (const Variant& v : lesson.variants) valid.push_back(v.name);
  for (const std::string& name : o.variants) {
    if (name != "all" && std::find(valid.begin(), valid.end(), name) == valid.end()) {
      throw UsageError(fmt::format("unknown variant '{}' for lesson {}; valid: {}, all", name, lesson.id, join(valid)));
    }
  }
  const bool all = std::find(o.variants.begin(), o.variants.end(), "all") != o.variants.end();
  if (all && o.variants.size() == 1) return {};
  // "all" with names: every variant "all" means, and the deliberately wrong ones named.
  std::vector<std::string> chosen;
  for (const Variant& v : lesson.variants) {
    const bool named = std::find(o.variants.begin(), o.variants.end(), v.name) != o.variants.end();
    if (named || (all && !v.deliberately_wrong && !v.exercise)) chosen.push_back(v.name);
  }
  return chosen;
}

std::vector<Backend> resolve_backends(const Options& o) {
  std::vector<Backend> backends;
  for (const std::string& name : o.backends) {
    if (name == "all") return {std::begin(kAllBackends), std::end(kAllBackends)};
    const auto b = parse_backend(name);
    if (!b) throw UsageError(fmt::format("unknown backend '{}'; valid: cpu, gpu, emulated, all", name));
    if (std::find(backends.begin(), backends.end(), *b) == backends.end()) backends.push_back(*b);
  }
  return backends;
}

void check_json_path(const std::string& path) {
  // Try the temporary file the report will be written through, so a bad path fails before the
  // runs, not after them.
  const std::string tmp = path + ".tmp";
  std::ofstream probe(tmp, std::ios::app);
  if (!probe) throw UsageError(fmt::format("cannot write --json file '{}': {}", path, std::strerror(errno)));
  probe.close();
  std::remove(tmp.c_str());
}

// The thread map of a small launch, on the GPU when one runs, else emulated.
// Every lesson, for help and error texts that name which lessons offer what (set by lesson_cli_main).
const std::vector<const Lesson*>* every_lesson = nullptr;

// "02, 03": the lessons with a hook, as the registry has them — so no text names them by hand.
template <typename Has>
std::string lessons_with(Has has) {
  std::vector<std::string> ids;
  if (every_lesson != nullptr) {
    for (const Lesson* l : *every_lesson) {
      if (has(*l)) ids.push_back(l->id);
    }
  }
  return ids.empty() ? "none" : join(ids, ", ");
}
const auto has_thread_map = [](const Lesson& l) { return l.thread_map.has_value(); };
const auto has_timeline = [](const Lesson& l) { return l.timeline.has_value(); };
const auto has_steps = [](const Lesson& l) { return l.steps.has_value(); };
const auto trains = [](const Lesson& l) { return l.training.has_value(); };

int print_thread_map(const Lesson& lesson, const Selection& selection, bool gpu_runs) {
  if (!lesson.thread_map) {
    throw UsageError(
        fmt::format("lesson {} has no thread map (lessons with one: {})", lesson.id, lessons_with(has_thread_map)));
  }
  const std::int64_t n = selection.sizes.front();
  if (selection.sizes.size() > 1 || n > lesson.thread_map->max_n) {
    throw UsageError(fmt::format("--thread-map takes one small size: --n 1 to {} (the table has a line per thread)",
                                 lesson.thread_map->max_n));
  }
  const std::string variant = selection.variants.size() == 1 ? selection.variants.front() : std::string();
  const bool emulated_wanted =
      std::find(selection.backends.begin(), selection.backends.end(), Backend::emulated) != selection.backends.end();
  const Backend backend = gpu_runs ? Backend::gpu : Backend::emulated;
  if (!gpu_runs && !emulated_wanted)
    throw UsageError("--thread-map runs on the GPU or emulated: add --backend emulated");
  fmt::print("{}", format_thread_map(lesson.thread_map->record(n, selection.options.block, backend, variant)));
  return kExitOk;
}

// A variant's shared memory step by step, recorded on the emulator at one small size.
int print_steps(const Lesson& lesson, const Selection& selection) {
  if (!has_steps(lesson)) {
    throw UsageError(
        fmt::format("lesson {} draws nothing step by step (lessons that do: {})", lesson.id, lessons_with(has_steps)));
  }
  const std::vector<Problem> problems = selected_problems(lesson, selection);
  if (problems.size() != 1 || problems.front().n > lesson.steps->max_n) {
    throw UsageError(fmt::format("--steps records one small size: --n 1 to {}", lesson.steps->max_n));
  }
  std::vector<std::string> variants = selection.variants;
  if (variants.empty()) variants = lesson.steps->variants;
  for (const std::string& v : variants) {
    try {
      const StepRecording r = record_shared_steps(lesson, v, problems.front(), selection.options.seed);
      fmt::print("{} at {}, seed {} (block 0 of each launch, recorded on the emulator):\n", v,
                 problem_label(problems.front()), selection.options.seed);
      if (lesson.steps->picture == SharedMemorySteps::Picture::online_softmax) {
        const OnlineSoftmaxSteps steps = online_softmax_steps(r);
        for (std::size_t q = 0; q < steps.queries.size(); ++q)
          fmt::print("{}\n", format_online_softmax_steps(steps, q));
      } else {
        fmt::print("{}\n", format_shared_steps(r));
      }
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  return kExitOk;
}

// One pipeline run recorded on the GPU, beside the serial run (lesson 08), or one step over
// several GPUs (lesson 10); with --json, saved too.
int print_timeline(const Lesson& lesson, const Selection& selection, const std::string& json, bool gpu_runs) {
  if (!lesson.timeline) {
    throw UsageError(
        fmt::format("lesson {} has no timeline (lessons with one: {})", lesson.id, lessons_with(has_timeline)));
  }
  const std::vector<Problem> problems = selected_problems(lesson, selection);
  if (problems.size() != 1) throw UsageError("--timeline records one problem: one --n or one --shape");
  if (!gpu_runs) throw UsageError("--timeline records a run on the GPU: " + device_info().reason);
  if (!json.empty()) check_json_path(json);
  const std::string variant = selection.variants.size() == 1 ? selection.variants.front() : std::string();
  Timeline t;
  try {
    t = lesson.timeline->record(problems.front(), variant, selection.options.block);
  } catch (const NotApplicable& e) {
    throw UsageError(e.what());
  }
  fmt::print("{}", format_timeline(t));
  if (!json.empty()) write_file_atomically(json, timeline_to_json(t));
  return kExitOk;
}

// A training run (lesson 07): on the one backend asked for, else the GPU where there is one, else
// the CPU; the variant asked for, else the fastest that fits.
int print_training(const Lesson& lesson, const Options& o) {
  if (!lesson.training) {
    throw UsageError(
        fmt::format("lesson {} does not train anything (lessons that do: {})", lesson.id, lessons_with(trains)));
  }
  if (o.epochs && (*o.epochs < 1 || *o.epochs > 100000))
    throw UsageError(fmt::format("--epochs must be between 1 and 100000; got {}", *o.epochs));
  const std::vector<Backend> backends = resolve_backends(o);
  Backend backend = backends.size() == 1 ? backends.front() : Backend::cpu;
  if (backends.size() != 1 && kGpuBuilt && device_info().available) backend = Backend::gpu;
  if (backend == Backend::gpu && !device_info().available)
    throw UsageError("no GPU to train on (" + device_info().reason + "); --backend emulated or cpu");
  if (o.variants.size() > 1) throw UsageError("--train takes one --variant");
  const std::string variant = o.variants.front() == "all" ? "" : o.variants.front();
  try {
    fmt::print("{}", lesson.training->report(o.train, variant, backend, o.epochs.value_or(0)));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return kExitOk;
}

int run(const Lesson& lesson, const Options& o, int argc, const char* const* argv) {
  if (o.list) {
    print_list(lesson);
    return kExitOk;
  }
  if (lesson.other_processes) {
    const std::vector<Backend> asked = resolve_backends(o);
    const bool gpu = std::find(asked.begin(), asked.end(), Backend::gpu) != asked.end();
    if (const auto status = lesson.other_processes(argc, argv, !o.train.empty(), gpu)) return *status;
  }
  if (!o.train.empty()) return print_training(lesson, o);
  Selection selection;
  selection.problems = resolve_shapes(lesson, o);
  if (selection.problems.empty()) selection.sizes = resolve_sizes(lesson, o);
  selection.variants = resolve_variants(lesson, o);
  selection.backends = resolve_backends(o);
  const int reps = o.reps.value_or(20), warmup = o.warmup.value_or(3);
  if (reps < 1 || reps > 100000) throw UsageError(fmt::format("--reps must be between 1 and 100000; got {}", reps));
  if (warmup < 0 || warmup > 10000)
    throw UsageError(fmt::format("--warmup must be between 0 and 10000; got {}", warmup));
  selection.options.reps = reps;
  selection.options.warmup = warmup;
  if (!o.reps) selection.emulated_reps = std::min(reps, 3);
  if (!o.warmup) selection.emulated_warmup = std::min(warmup, 1);
  selection.options.seed = o.seed.value_or(fresh_seed());
  selection.options.count_memory = o.memory_report;
  if (o.memory_report &&
      std::find(selection.backends.begin(), selection.backends.end(), Backend::emulated) == selection.backends.end()) {
    throw UsageError(
        "--memory-report counts on the emulator, which sees every access: add --backend emulated (on a GPU, "
        "Nsight Compute counts the same: see docs/lessons/11-profiling.md)");
  }

  const auto runs = selected_runs(lesson, selection);
  const bool gpu_selected =
      std::find(selection.backends.begin(), selection.backends.end(), Backend::gpu) != selection.backends.end();
  if (runs.empty() && gpu_selected && !kGpuBuilt) {
    throw UsageError(
        "this is an emulated-only build (no CUDA toolkit): it has no GPU backend; "
        "--backend emulated runs the GPU kernels on the CPU");
  }
  if (runs.empty()) {
    throw UsageError(
        fmt::format("nothing to run: no selected variant of lesson {} runs on the selected backends "
                    "(see --list)",
                    lesson.id));
  }
  DeviceInfo device = gpu_selected ? device_info() : DeviceInfo{};
  if (!gpu_selected) device.reason = "not queried: no GPU backend selected";
  const bool gpu_runs = gpu_selected && device.available;
  const bool emulated_runs =
      std::any_of(runs.begin(), runs.end(), [](auto& p) { return p.second == Backend::emulated; });

  // The block size is a GPU launch parameter: 1 to the device's limit (CUDA's 1024 without one).
  const int block_limit = gpu_runs ? device.max_threads_per_block : 1024;
  selection.options.block = o.block.value_or(256);
  selection.blocks = o.blocks;
  std::vector<int> all_blocks = o.blocks;
  all_blocks.push_back(selection.options.block);
  for (const int block : all_blocks) {
    if (block < 1 || block > block_limit) {
      throw UsageError(fmt::format("--block {} is out of range: a block holds 1 to {} threads{}", block, block_limit,
                                   gpu_runs ? " on " + device.name : " (CUDA's limit)"));
    }
  }
  if (o.thread_map) return print_thread_map(lesson, selection, gpu_runs);
  if (o.timeline) return print_timeline(lesson, selection, o.json, gpu_runs);
  if (o.steps) return print_steps(lesson, selection);
  for (const Problem& p : selected_problems(lesson, selection)) {
    if (auto problem = memory_problem(lesson, p, gpu_runs, emulated_runs, host_available_bytes(),
                                      gpu_runs ? device_free_memory() : 0)) {
      throw UsageError(*problem);
    }
  }
  if (!o.json.empty()) check_json_path(o.json);

  // With --csv, stdout carries only the CSV; everything for people goes to stderr.
  std::FILE* info = o.csv ? stderr : stdout;
  print_header(info, lesson, device, gpu_runs, emulated_runs, selection.options.seed);

  std::vector<std::string> notes;
  RunCallbacks callbacks;
  callbacks.on_note = [&](const std::string& text) { notes.push_back(text); };
  const bool progress = isatty(STDERR_FILENO) != 0;
  const std::size_t total = runs.size() * selected_problems(lesson, selection).size();
  std::size_t done = 0;
  callbacks.on_result = [&](const Result& r) {
    ++done;
    if (progress) {
      fmt::print(stderr, "\r[{}/{}] {} ({}) {}        ", done, total, r.variant, to_string(r.backend),
                 problem_label(r.problem));
      if (done == total) fmt::print(stderr, "\r{:60}\r", "");
    }
  };
  const std::vector<Result> results = run_lesson(lesson, selection, callbacks);

  if (o.csv) {
    fmt::print("{}", format_csv(results));
  } else {
    fmt::print("{}", format_table(results));
  }
  for (const Result& r : results) {
    if (r.message.empty()) continue;
    const std::string note =
        fmt::format("{} ({}, {}): {}", r.variant, to_string(r.backend), problem_label(r.problem), r.message);
    if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);  // once per block sweep
  }
  if (selected_problems(lesson, selection).size() > 1) {
    for (const std::string& line : crossover_summary(results)) notes.push_back(line);
  }
  if (lesson.summary_notes) {
    for (const std::string& line : lesson.summary_notes(results)) notes.push_back(line);
  }
  if (o.memory_report) print_memory_report(info, results);
  if (!notes.empty()) fmt::print(info, "\n");
  for (const std::string& line : notes) fmt::print(info, "{}\n", line);

  if (!o.json.empty()) {
    Report report;
    report.command = command_line(argc, argv);
    report.date = utc_now_iso8601();
    report.device = device;
    report.peaks = gpu_runs ? measured_peaks() : std::nullopt;
    report.seed = selection.options.seed;
    report.results = results;
    write_file_atomically(o.json, format_json(report));
    fmt::print(info, "Wrote {}\n", o.json);
  }
  const bool bad = std::any_of(results.begin(), results.end(),
                               [](const Result& r) { return r.status == Status::failed || r.status == Status::error; });
  return bad ? kExitFailed : kExitOk;
}

}  // namespace

int lesson_cli_main(const Lesson& lesson, const std::vector<const Lesson*>& lessons, int argc,
                    const char* const* argv) {
  every_lesson = &lessons;
  std::vector<std::string> shape_forms;  // each lesson's --shape, from the lessons themselves
  for (const Lesson* l : lessons) {
    if (l->parse_shape) shape_forms.push_back("lesson " + l->id + " " + l->shape_help);
  }
  const std::string program = fmt::format("lesson{}_{}", lesson.id, lesson.name);
  CLI::App app{fmt::format("GPU Lab lesson {}: {} — {}", lesson.id, lesson.title, lesson.summary), program};
  Options o;
  app.add_option("--n", o.n, "Problem size: " + lesson.size_help);
  auto* sizes =
      app.add_option("--sizes", o.sizes, "Several sizes, comma-separated: --sizes 1000,1000000")->delimiter(',');
  auto* sweep = app.add_flag("--sweep", o.sweep, "Run the lesson's sweep of sizes (see --list)");
  auto* shapes =
      app.add_option("--shape", o.shapes,
                     "A problem by its shape where the lesson has one (see --list): " + join(shape_forms, "; ") +
                         ". Several, comma-separated")
          ->delimiter(',');
  app.get_option("--n")->excludes(sizes)->excludes(sweep)->excludes(shapes);
  sizes->excludes(sweep)->excludes(shapes);
  sweep->excludes(shapes);
  app.add_option("--block", o.block, "Threads per block for the GPU variants (default 256)");
  app.add_option("--blocks", o.blocks, "A block-size sweep: run each kernel with each, e.g. --blocks 32,64,128")
      ->delimiter(',')
      ->excludes("--block");
  app.add_flag("--thread-map", o.thread_map,
               "Print which block, thread and warp handle each element of a small launch (lessons " +
                   lessons_with(has_thread_map) + ")");
  app.add_flag("--timeline", o.timeline,
               "Record one run of a pipeline variant on the GPU, chunk by chunk, beside the serial run (lesson 08), "
               "or one step over several GPUs, phase by phase on each (lesson 10), and print it (lessons " +
                   lessons_with(has_timeline) + "; with --json FILE, saved as JSON for the app)");
  app.add_flag("--steps", o.steps,
               "Record block 0 of a variant's launches on the emulator at a small --n and print its shared "
               "memory step by step: who read and wrote what between barriers (lessons " +
                   lessons_with(has_steps) + ")");
  auto* train = app.add_option("--train", o.train,
                               "Train on a dataset (xor, moons, circles, spirals) and print the loss, accuracy "
                               "and decision boundary (lessons " +
                                   lessons_with(trains) + ")");
  app.add_option("--epochs", o.epochs, "Epochs for --train (default: the dataset's)")->needs(train);
  app.add_option("--variant", o.variants, "Variant name(s), comma-separated, or all (default)")->delimiter(',');
  app.add_option("--backend", o.backends, "cpu, gpu, emulated, all (default), or a comma-separated list")
      ->delimiter(',');
  app.add_option("--reps", o.reps, "Timed repetitions per run (default 20; 3 for emulated rows)");
  app.add_option("--warmup", o.warmup, "Untimed repetitions before timing (default 3; 1 for emulated rows)");
  app.add_option("--seed", o.seed, "Seed for the random inputs, to replay a run (default: a fresh one)");
  app.add_flag("--csv", o.csv, "Print results as CSV on stdout (everything else goes to stderr)");
  app.add_option("--json", o.json, "Also write the results, device and command as JSON to FILE");
  app.add_flag("--list", o.list, "List the variants and sizes, then exit");
  app.add_flag("--memory-report", o.memory_report,
               "Emulated rows: count each kernel's global memory requests and the 32-byte sectors they touch, "
               "shared-memory requests and bank conflicts, per kernel and per source line (as Nsight Compute "
               "does on a GPU); printed after the table and written to --json");
  app.footer(
      "Exit codes: 0 every check passed; 1 a check failed or a run errored; 2 bad usage (unknown flag,\n"
      "variant or backend, a size or block size out of range, not enough memory, an unwritable --json file).\n"
      "Without a GPU the CPU rows run and one line says why the GPU rows were skipped.\n"
      "Emulated rows run the GPU kernels on the CPU: they check the kernels, and their times are CPU times.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    fmt::print("{}", app.help());
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "{}: error: {}\nRun '{} --help' for the options.\n", program, e.what(), program);
    return kExitUsage;
  }
  try {
    return run(lesson, o, argc, argv);
  } catch (const UsageError& e) {
    fmt::print(stderr, "{}: error: {}\n", program, e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: error: {}\n", program, e.what());
    return kExitFailed;
  }
}

}  // namespace gpulab
