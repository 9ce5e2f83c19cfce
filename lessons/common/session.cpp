#include "common/session.hpp"

#include <algorithm>
#include <exception>
#include <new>

#include <fmt/format.h>

#include "base/device_info.hpp"
#include "common/measure.hpp"
#include "common/peaks.hpp"

namespace gpulab {

std::vector<std::pair<const Variant*, Backend>> selected_runs(const Lesson& lesson, const Selection& selection) {
  std::vector<std::pair<const Variant*, Backend>> runs;
  for (const Variant& v : lesson.variants) {
    // "All" leaves out the deliberately wrong kernels: they run when named.
    const bool wanted = selection.variants.empty() ? !v.deliberately_wrong && !v.exercise
                                                   : std::find(selection.variants.begin(), selection.variants.end(),
                                                               v.name) != selection.variants.end();
    if (!wanted) continue;
    for (const auto& [backend, make] : v.backends) {
      if (std::find(selection.backends.begin(), selection.backends.end(), backend) != selection.backends.end()) {
        runs.emplace_back(&v, backend);
      }
    }
  }
  return runs;
}

std::vector<Problem> selected_problems(const Lesson& lesson, const Selection& selection) {
  if (!selection.problems.empty()) return selection.problems;
  std::vector<Problem> problems;
  for (const std::int64_t n : selection.sizes) problems.push_back(lesson.problem(n));
  return problems;
}

namespace {

double rate(double amount, const Stats& time, double scale) {
  return time.median > 0 ? amount / (time.median * 1e-3) / scale : 0;
}

// Turns one measurement into a result row: status, timings, and the rates derived from them.
void fill_from(Result& r, const Measurement& m, const Counts& counts, bool tensor_cores) {
  if (!m.first_check.passed || !m.final_check.passed) {
    r.status = Status::failed;
    r.message = m.first_check.passed ? "after timing: " + m.final_check.message : m.first_check.message;
    r.rel_error = m.first_check.passed ? m.final_check.rel_error : m.first_check.rel_error;
  } else {
    r.status = Status::passed;
    r.rel_error = std::max(m.first_check.rel_error, m.final_check.rel_error);
  }
  r.memory = m.memory;
  r.fast_path = m.timed_on_fast_path;
  if (m.samples.empty()) return;
  r.kernel = m.kernel;
  r.total = m.total;
  r.gbps = rate(counts.bytes, m.kernel, 1e9);
  r.gflops = rate(counts.flops, m.kernel, 1e9);
  if (r.backend != Backend::cpu) {  // the CPU copies nothing
    r.h2d = m.h2d;
    r.d2h = m.d2h;
    if (counts.h2d_bytes > 0) r.h2d_gbps = rate(counts.h2d_bytes, m.h2d, 1e9);
    if (counts.d2h_bytes > 0) r.d2h_gbps = rate(counts.d2h_bytes, m.d2h, 1e9);
  }
  if (r.backend == Backend::gpu) {
    if (const auto peaks = measured_peaks()) {
      if (tensor_cores) {
        // The FP32 peak is no ceiling for the tensor cores: the lesson compares with its library instead.
      } else if (compute_bound(counts) && peaks->fp32_gflops > 0) {
        r.percent_of_fp32_peak = 100.0 * r.gflops / peaks->fp32_gflops;
      } else if (!compute_bound(counts) && peaks->copy_gbps > 0) {
        r.percent_of_peak = 100.0 * r.gbps / peaks->copy_gbps;
      }
    }
  }
  if (m.cancelled) r.message = "cancelled after " + std::to_string(m.samples.size()) + " repetitions";
}

}  // namespace

std::optional<std::string> skip_reason(const Variant& variant, Backend backend, const Problem& problem) {
  for (const SkipRule& rule : variant.skips) {
    if (auto reason = rule(problem, backend)) return *reason;
  }
  return std::nullopt;
}

std::vector<Result> run_lesson(const Lesson& lesson, const Selection& selection, const RunCallbacks& callbacks) {
  auto note = [&](const std::string& text) {
    if (callbacks.on_note) callbacks.on_note(text);
  };
  auto cancelled = [&] { return callbacks.cancelled && callbacks.cancelled(); };
  std::vector<Result> results;
  auto publish = [&](Result r) {
    if (callbacks.on_result) callbacks.on_result(r);
    results.push_back(std::move(r));
  };

  auto runs = selected_runs(lesson, selection);
  // Asked for, not only built: an emulated-only build has no GPU rows, and says why.
  const bool gpu_wanted =
      std::find(selection.backends.begin(), selection.backends.end(), Backend::gpu) != selection.backends.end();
  if (gpu_wanted && !device_info().available) {
    note("GPU rows skipped: " + device_info().reason);
    std::erase_if(runs, [](auto& p) { return p.second == Backend::gpu; });
  }

  for (const Problem& problem : selected_problems(lesson, selection)) {
    if (cancelled()) break;
    const std::int64_t n = problem.n;
    const Counts lesson_counts = lesson.counts(problem);
    auto row = [&](const Variant& v, Backend backend) {
      Result r;
      r.lesson = lesson.id;
      r.variant = v.name;
      r.backend = backend;
      r.problem = problem;
      r.reps = selection.options.reps;
      r.warmup = selection.options.warmup;
      r.seed = selection.options.seed;
      return r;
    };
    std::unique_ptr<Instance> instance;
    try {
      instance = lesson.make_instance(problem, selection.options.seed);
    } catch (const std::exception& e) {
      for (const auto& [v, backend] : runs) {
        Result r = row(*v, backend);
        r.status = Status::error;
        r.message = fmt::format("could not prepare the inputs for n = {}: {}", n, e.what());
        publish(std::move(r));
      }
      continue;
    }
    for (const auto& [v, backend] : runs) {
      // The CPU takes no block size; kernels run once per block size of a sweep.
      std::vector<int> blocks = selection.blocks;
      if (blocks.empty() || backend == Backend::cpu || v->fixed_block) blocks = {selection.options.block};
      for (const int block : blocks) {
        if (cancelled()) break;
        Result r = row(*v, backend);
        RunOptions options = selection.options;
        options.block = block;
        if (backend == Backend::emulated) {
          options.reps = r.reps = selection.emulated_reps.value_or(options.reps);
          options.warmup = r.warmup = selection.emulated_warmup.value_or(options.warmup);
        }
        if (auto reason = skip_reason(*v, backend, problem)) {
          r.status = Status::skipped;
          r.message = *reason;
          publish(std::move(r));
          continue;
        }
        try {
          const auto& make = std::find_if(v->backends.begin(), v->backends.end(), [b = backend](auto& p) {
                               return p.first == b;
                             })->second;
          std::unique_ptr<Run> run = make(*instance, options);
          r.block = run->block();
          r.occupancy = run->occupancy();
          fill_from(r, measure(*run, backend, options, callbacks.cancelled),
                    v->counts ? v->counts(problem) : lesson_counts, v->tensor_cores);
          if (r.status == Status::passed && r.message.empty()) r.message = run->note();
        } catch (const NotApplicable& e) {
          r.status = Status::skipped;
          r.message = e.what();
        } catch (const std::bad_alloc&) {
          r.status = Status::error;
          r.message = fmt::format("out of host memory at n = {}", n);
        } catch (const std::exception& e) {
          r.status = Status::error;
          r.message = e.what();
        }
        publish(std::move(r));
      }
    }
  }
  return results;
}

}  // namespace gpulab
