// Grading: each case in a process of its own, its outputs checked against the float64 reference.
#include "grading/grading.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <regex>
#include <sstream>

#include "base/device_info.hpp"
#include "base/mix.hpp"
#include "common/peaks.hpp"
#include "grading/check.hpp"
#include "grading/driver.hpp"
#include "grading/efficiency.hpp"
#include "grading/references.hpp"
#include "grading/sandbox.hpp"
#include "grading/submission.hpp"
#include "run/cuda_build.hpp"

namespace gpulab::grading {

namespace fs = std::filesystem;

namespace {

constexpr int kSanitizerFound = 99;    // compute-sanitizer's --error-exitcode
constexpr double kLimitAfterHang = 5;  // seconds a case at most, after a case of the exercise timed out

// What a CUDA error usually means in a learner's code.
std::string cuda_error_hint(const std::string& line) {
  static const std::vector<std::pair<std::string, std::string>> hints = {
      {"cudaErrorInvalidConfiguration",
       "the launch was refused: a block of more than 1024 threads, a grid with 0 blocks (a size "
       "rounded down to zero?) or over its limit, or more shared memory than a block may have"},
      {"cudaErrorIllegalAddress",
       "a thread read or wrote outside an array: does every thread check that its element exists "
       "before it touches it?"},
      {"cudaErrorMisalignedAddress", "an access at an address its type may not start at"},
      {"cudaErrorInvalidValue",
       "a launch or a CUDA call was refused: a block of more than 1024 threads, a grid with 0 blocks "
       "(a size rounded down to zero by integer division?) or over its limit, more shared memory than a "
       "block may have, or a call given a size, pointer or direction it refuses"},
      {"cudaErrorLaunchOutOfResources", "too many registers or too much shared memory for the block asked for"},
      {"cudaErrorInvalidDevicePointer", "a pointer that is not device memory was given where device memory is needed"},
  };
  for (const auto& [name, hint] : hints) {
    if (line.find(name) != std::string::npos) return hint;
  }
  return "";
}

std::string line_with(const std::string& text, const std::string& tag) {
  const auto at = text.find(tag);
  if (at == std::string::npos) return "";
  const auto end = text.find('\n', at);
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// The last `lines` lines of a text.
std::string tail(const std::string& text, std::size_t lines) {
  std::size_t at = text.size();
  if (at > 0 && text[at - 1] == '\n') --at;  // a final newline ends the last line, it starts none
  for (std::size_t n = 0; n < lines; ++n) {
    const std::size_t found = at == 0 ? std::string::npos : text.rfind('\n', at - 1);
    if (found == std::string::npos) return text;
    at = found;
  }
  return text.substr(at + 1);
}

// compute-sanitizer from the toolkit GPU Lab was built with, else from the PATH; empty: none.
std::string sanitizer_path() {
  const std::string nvcc = build::nvcc_path();
  const fs::path beside = fs::path(nvcc).parent_path() / "compute-sanitizer";
  if (!nvcc.empty() && fs::exists(beside)) return beside.string();
  std::string found;
  if (build::run_logged("command -v compute-sanitizer", found) != 0) return "";
  while (!found.empty() && (found.back() == '\n' || found.back() == ' ')) found.pop_back();
  return found;
}

// Why a finished program's case failed, from its exit and output; empty when it ran cleanly.
std::string explain_run(const ChildResult& run, const Limits& limits) {
  if (run.timed_out) {
    return fmt::format(
        "it did not finish within {:g} s and was stopped: a hang? (a __syncthreads() that some threads "
        "never reach, a loop whose condition never changes, or a grid-stride loop that does not step)",
        limits.seconds);
  }
  if (run.signal != 0) {
    std::string said = tail(run.output, 3);
    while (!said.empty() && said.back() == '\n') said.pop_back();
    return fmt::format(
        "the program was ended by signal {} ({}): the host code crashed (device memory freed with free() "
        "or read on the host? an array indexed past its end?), or it ran out of its {:g} GB of memory{}",
        run.signal, strsignal(run.signal), limits.memory_gb, said.empty() ? "" : ". It said: " + said);
  }
  if (run.exit_code == kDriverCudaError) {
    const std::string line = line_with(run.output, kCudaErrorTag);
    const std::string what = line.substr(std::min(line.size(), std::strlen(kCudaErrorTag) + 1));
    const std::string hint = cuda_error_hint(line);
    return "a CUDA error " + what + (hint.empty() ? "" : " — " + hint);
  }
  return "";
}

// An output the host computed, from the driver's lines on the emulator (driver.hpp); empty when none.
std::string host_work(const std::string& output) {
  std::stringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(kHostWorkTag, 0) != 0) continue;
    std::stringstream fields(line.substr(std::strlen(kHostWorkTag)));
    std::string name;
    double percent = 0;
    std::size_t host_bytes = 0;
    fields >> name >> percent >> host_bytes;
    const std::string how =
        host_bytes > 0
            ? fmt::format("{} bytes of {} were written by host code, not by a copy from the device", host_bytes, name)
            : fmt::format(
                  "{:.0f} % of {}'s values were copied from host memory to the device by your function "
                  "(a cudaMemcpy from a host array, or host memory a kernel read)",
                  percent, name);
    return "the host did the work: " + how +
           ". The outputs must be computed by your kernels on the device — copying the inputs to the host, "
           "computing there and copying the results back earns no marks.";
  }
  return "";
}

}  // namespace

fs::path exercises_root() {
  if (const char* env = std::getenv("GPULAB_EXERCISES"); env != nullptr && *env != '\0') return env;
  return GPULAB_EXERCISES_DIR;
}

const std::vector<Spec>& all_exercises() {
  static const std::vector<Spec> all = find_exercises(exercises_root());
  return all;
}

const Spec* find_exercise(std::string_view id) {
  for (const Spec& s : all_exercises()) {
    if (s.name == id) return &s;
  }
  for (const Spec& s : all_exercises()) {
    if (s.lesson == id) return &s;
  }
  return nullptr;
}

std::vector<const Spec*> exercises_of_lesson(std::string_view lesson) {
  std::vector<const Spec*> found;
  for (const Spec& s : all_exercises()) {
    if (s.lesson == lesson) found.push_back(&s);
  }
  return found;
}

double Grade::case_score(const CaseResult& c) const {
  const bool earned = std::any_of(cases.begin(), cases.end(), [](const CaseResult& o) { return o.passed && !o.empty; });
  if (c.empty && !earned) return 0;
  return c.score >= 0 ? c.score : c.passed ? 1 : 0;
}

double Grade::score() const {
  if (cases.empty()) return 0;
  double earned = 0;
  for (const CaseResult& c : cases) earned += case_score(c);
  return earned / static_cast<double>(cases.size());
}

std::string first_report(const std::string& output, std::size_t lines) {
  std::stringstream in(output);
  std::string line, report;
  std::size_t taken = 0;
  bool in_report = false, done = false;
  while (!done && std::getline(in, line) && taken < lines) {
    if (line.rfind("=========", 0) != 0) {
      done = in_report;  // the first report ends where its lines do
      continue;
    }
    // A block starts with "========= " and a word; its lines go on indented. Notes (leaks), the
    // summary and the tool's banner are no report of an error.
    const bool starts = line.size() > 10 && line[9] == ' ' && line[10] != ' ';
    if (starts) {
      const bool ignored = line.find("Note:") != std::string::npos || line.find("ERROR SUMMARY") != std::string::npos ||
                           line.find("COMPUTE-SANITIZER") != std::string::npos;
      if (in_report && ignored) break;
      in_report = !ignored || in_report;
      if (ignored) continue;
    }
    if (!in_report) continue;
    report += line + "\n";
    ++taken;
  }
  // The arrays the grader allocates are named as the entry point names them, not by the driver's line.
  static const std::regex driver_line(R"('([A-Za-z_0-9]+)' was allocated at \S*/drivers/\S+)");
  return std::regex_replace(report, driver_line, "'$1' is the array $1 the grader passed to your function");
}

CaseResult judge(const Spec& spec, const Reference& reference, const CaseData& data, const ChildResult& run,
                 const Limits& limits) {
  CaseResult r;
  std::string failure = explain_run(run, limits);
  // The emulator's checked mode reports races, uninitialised reads and out-of-bounds accesses
  // even where the numbers came out right.
  const std::string checked = first_report(run.output);
  if (const std::string line = line_with(run.output, kUnfinishedTag); !line.empty()) {
    const std::string count = line.substr(std::strlen(kUnfinishedTag) + 1);
    failure = "your function returned while " + count + " cudaMemcpyAsync cop" + (count == "1" ? "y" : "ies") +
              " to host memory " + (count == "1" ? "was" : "were") +
              " still queued, with no cudaStreamSynchronize, cudaEventSynchronize or cudaDeviceSynchronize "
              "after them: the emulator did them at once, but on a GPU the results would not be there yet "
              "when the caller reads them.";
  }
  if (failure.empty()) failure = host_work(run.output);
  if (failure.empty() && !run.outputs_read && checked.empty()) {
    failure = "the program ended without writing its outputs (exit status " + std::to_string(run.exit_code) + ")";
  }
  // After a checked-mode report the launch was stopped, as compute-sanitizer stops it, and the CUDA
  // error the program then saw is that stop's, not a GPU's (which would have run on, undefined).
  if (!checked.empty() && run.finished && run.exit_code == kDriverCudaError) {
    const std::string line = line_with(run.output, kCudaErrorTag);
    const auto name = line.find("cudaError");
    failure = "The checked mode stopped that launch, as compute-sanitizer does (so the program then saw " +
              (name == std::string::npos ? std::string("an error") : line.substr(name, line.find(':', name) - name)) +
              "); on a GPU without a sanitizer the kernel would have run on, its result undefined.";
  }
  if (run.outputs_read) {
    // Once: at a performance case's size the float64 reference takes minutes.
    const auto expected = reference.compute(data);
    const CaseCheck check = check_outputs(spec, data, run.outputs, expected, !checked.empty());
    if (!check.passed) failure += (failure.empty() ? "" : " ") + check.message;
    if (check.passed && !run.last_outputs.empty()) {  // the timed calls must be right too
      const CaseCheck last = check_outputs(spec, data, run.last_outputs, expected);
      if (!last.passed) failure += "after the timed calls: " + last.message;
    }
  }
  if (!checked.empty()) {
    failure = "GPU Lab's checked mode (compute-sanitizer without a GPU) reported an error" +
              std::string(failure.empty() && run.outputs_read ? " — the numbers came out right, but the kernel is wrong"
                                                              : "") +
              ":\n" + checked + failure;
  }
  // What the program printed itself is labelled as such: a student's own "All tests passed." is
  // not the grader's word.
  const std::string printed = run.outputs_read ? "" : tail(run.output, 20);
  r.report = !checked.empty()  ? checked
             : printed.empty() ? ""
                               : "What your program printed (its last lines):\n" + printed;
  r.passed = failure.empty();
  r.message = failure;
  return r;
}

// The performance case: timed on fresh inputs (a cached or precomputed answer fails its check),
// its median call against the device's measured peak, scored by the exercise's bands.
// Nothing without a GPU: the performance case is not the emulator's to judge.
std::optional<CaseResult> time_performance(const Spec& spec, const Reference& reference, const Built& built,
                                           const GradeOptions& options, const Grade& so_far) {
  const Performance& perf = *spec.performance;
  CaseResult r;
  r.label = "performance: " + case_label(spec, perf.at);
  r.catches = "a kernel far from the GPU's limits";
  r.score = 0;
  const bool checks_passed =
      std::all_of(so_far.cases.begin(), so_far.cases.end(), [](const CaseResult& c) { return c.passed; });
  const std::optional<Peaks> peaks = options.backend == Backend::gpu ? measured_peaks() : std::nullopt;
  if (!peaks) return std::nullopt;
  if (!checks_passed) {
    r.message = "not timed: the checks come first";
    return r;
  }
  // Inputs of its own, drawn from the run's seed (replayed by --seed, unknown to a student).
  const CaseData data = make_case_data(spec, reference, perf.at, mix64(options.seed ^ 0x7065726601ull));
  Limits limits{std::max(spec.time_limit_s, 120.0), spec.memory_limit_gb, options.backend == Backend::gpu};
  const ChildResult run = run_case(spec, built.program, data, limits, 3, 20);
  CaseResult judged = judge(spec, reference, data, run, limits);
  if (!judged.passed || run.times.empty()) {
    r.message = "the timed calls were wrong: " + judged.message;
    r.report = judged.report;
    return r;
  }
  std::vector<double> calls;
  for (const auto& t : run.times) calls.push_back(t[1]);
  std::sort(calls.begin(), calls.end());
  const double ms = calls[calls.size() / 2];
  const bool memory = !perf.bytes.empty();
  const double work = static_cast<double>(evaluate(memory ? perf.bytes : perf.flops, perf.at.sizes));
  const double rate = work / (ms * 1e6);  // GB/s or GFLOP/s
  const double peak = memory ? peaks->copy_gbps : peaks->fp32_gflops;
  const double fraction = rate / peak;
  r.rate = rate;
  r.rate_unit = memory ? "GB/s" : "GFLOP/s";
  for (const auto& [at_least, score] : perf.bands) {
    if (fraction >= at_least) {
      r.score = score;
      break;
    }
  }
  r.passed = r.score >= perf.bands.front().second;
  r.message = fmt::format(
      "median {:.3g} ms over 20 calls: {:.4g} {} = {:.1f} % of the measured {} ({:.4g}); score {:g}", ms, rate,
      memory ? "GB/s" : "GFLOP/s", 100 * fraction, memory ? "copy bandwidth" : "FP32 peak", peak, r.score);
  if (!r.passed) {
    r.message += fmt::format(" (full marks from {:.0f} %)", 100 * perf.bands.front().first);
  }
  return r;
}

Grade grade(const Spec& spec, const fs::path& file_given, const GradeOptions& options,
            const std::function<void(const CaseResult&)>& progress, const std::function<bool()>& cancelled) {
  const fs::path file = file_given.empty() ? spec.learner_file() : file_given;
  Grade g;
  g.exercise = spec.name;
  g.title = spec.title;
  g.lesson = spec.lesson;
  g.file = file.string();
  g.backend = options.backend;
  g.seed = options.seed;
  g.points = spec.points;
  const bool gpu = options.backend == Backend::gpu;
  if (gpu && build::nvcc_path().empty()) {
    g.skipped = true;
    g.message = "not graded on the GPU: this GPU Lab was built without the CUDA toolkit (no nvcc)";
    return g;
  }
  if (gpu && !device_info().available) {
    g.skipped = true;
    g.message = "not graded on the GPU: " + device_info().reason;
    return g;
  }
  const Reference* reference = find_reference(spec.reference);
  if (reference == nullptr) {
    g.message = "the exercise names the reference \"" + spec.reference + "\", which the grader does not have";
    return g;
  }
  const fs::path cache = options.cache.empty() ? build::default_cache("grade") : options.cache;
  const Built built = build_submission(spec, file, gpu, cache);
  g.build_log = built.log;
  const std::vector<Case> cases = cases_for(spec, options.seed);
  if (!built.ok) {
    g.message = built.refused ? "not graded: " + built.log
                              : file.filename().string() + " did not compile:\n" + tail(built.log, 30);
    for (const Case& c : cases) {
      CaseResult r;
      r.label = case_label(spec, c);
      r.catches = c.catches;
      r.drawn = c.drawn;
      r.message = built.refused ? "not graded" : "did not compile";
      g.cases.push_back(std::move(r));
    }
    return g;
  }
  Limits limits{options.time_limit_s > 0 ? options.time_limit_s : spec.time_limit_s, spec.memory_limit_gb, gpu};
  std::vector<std::vector<std::string>> wrappers;
  if (gpu && !options.sanitizers.empty()) {
    const std::string sanitizer = sanitizer_path();
    for (const std::string& tool : options.sanitizers) {
      if (sanitizer.empty()) break;
      wrappers.push_back(
          {sanitizer, "--tool", tool, "--error-exitcode", std::to_string(kSanitizerFound), "--print-limit", "4"});
    }
  }
  bool explained = false;  // the first failing case ran under memcheck (GPU)
  double slowest = 0;      // seconds, of the cases that finished
  bool shortened = false;  // a case timed out: the limit is short from then on
  for (std::size_t index = 0; index < cases.size(); ++index) {
    if (cancelled && cancelled()) {
      g.message = "cancelled";
      return g;
    }
    const Case& c = cases[index];
    const CaseData data = make_case_data(spec, *reference, c, mix64(options.seed ^ mix64(index + 1)));
    const ChildResult run = run_case(spec, built.program, data, limits);
    CaseResult r = judge(spec, *reference, data, run, limits);
    r.label = case_label(spec, c);
    r.catches = c.catches;
    r.drawn = c.drawn;
    r.empty = std::all_of(spec.params.begin(), spec.params.end(),
                          [&](const Param& p) { return !p.output || evaluate(p.size, data.sizes) == 0; });
    g.sandboxed = g.sandboxed && run.sandboxed;
    std::string failure = r.message;
    // A hang is usually every case's: the rest run with a short limit — five times the slowest
    // case that finished, at least a second, at most 5 s — so one loop that never ends costs a
    // minute, not a minute a case.
    if (!run.timed_out) slowest = std::max(slowest, run.seconds);
    if (run.timed_out && !shortened) {
      shortened = true;
      limits.seconds = std::min(limits.seconds, std::clamp(5 * slowest, 1.0, kLimitAfterHang));
      failure += fmt::format(" The remaining cases run with a limit of {:.3g} s each.", limits.seconds);
    }
    // On the GPU, a case whose numbers passed runs again under each compute-sanitizer tool.
    if (failure.empty()) {
      for (const auto& wrapper : wrappers) {
        Limits slower = limits;
        slower.seconds *= 4;  // the sanitizers are slow
        const ChildResult sanitized = run_case(spec, built.program, data, slower, 0, 0, wrapper);
        if (sanitized.finished && sanitized.exit_code == 0) continue;
        const std::string found = first_report(sanitized.output);
        failure = "compute-sanitizer --tool " + wrapper[2] +
                  (sanitized.exit_code == kSanitizerFound
                       ? " found an error — the numbers came out right, but the kernel is wrong:\n"
                       : " did not run cleanly:\n") +
                  (found.empty() ? tail(sanitized.output, 12) : found);
        r.report = sanitized.output;
        break;
      }
    }
    // On the GPU, the first case that fails runs once more under memcheck: a wrong answer often
    // comes from an access out of bounds, which the report then names with its line.
    if (!failure.empty() && !explained && !run.timed_out && !wrappers.empty() && wrappers.front()[2] == "memcheck") {
      explained = true;
      Limits slower = limits;
      slower.seconds *= 4;
      const ChildResult sanitized = run_case(spec, built.program, data, slower, 0, 0, wrappers.front());
      const std::string found = first_report(sanitized.output);
      if (sanitized.exit_code == kSanitizerFound && !found.empty()) {
        failure += "\ncompute-sanitizer --tool memcheck on this case:\n" + found;
        r.report = sanitized.output;
      }
    }
    r.passed = failure.empty();
    if (!r.passed) {
      r.message = failure;
      if (!c.catches.empty()) {
        if (std::string(".?\n").find(r.message.back()) == std::string::npos) r.message += '.';
        r.message +=
            (r.message.back() == '\n' ? "" : " ") + std::string("This case is there to catch: ") + c.catches + ".";
      }
    }
    g.cases.push_back(r);
    if (progress) progress(r);
  }
  for (CaseResult& r : grade_efficiency(spec, *reference, built, options, g)) g.cases.push_back(std::move(r));
  if (options.performance && spec.performance) {
    if (auto timed = time_performance(spec, *reference, built, options, g)) g.cases.push_back(std::move(*timed));
  }
  const auto failed = std::find_if(g.cases.begin(), g.cases.end(), [](const CaseResult& r) { return !r.passed; });
  g.passed = failed == g.cases.end() && !g.cases.empty();
  g.message = g.passed ? fmt::format("all {} cases passed", g.cases.size())
                       : fmt::format("{}: {}", failed->label, failed->message);
  return g;
}

}  // namespace gpulab::grading
