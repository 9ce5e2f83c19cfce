#include "common/shared_steps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>

#include "common/session.hpp"

namespace gpulab {

namespace steps = emulated::shared_steps;

StepRecording record_shared_steps(const Lesson& lesson, const std::string& variant, const Problem& problem,
                                  std::uint64_t seed, std::uint64_t block) {
  const auto v =
      std::find_if(lesson.variants.begin(), lesson.variants.end(), [&](const Variant& x) { return x.name == variant; });
  if (v == lesson.variants.end()) throw std::invalid_argument("lesson " + lesson.id + " has no variant " + variant);
  const auto make =
      std::find_if(v->backends.begin(), v->backends.end(), [](const auto& p) { return p.first == Backend::emulated; });
  if (make == v->backends.end()) throw std::invalid_argument(variant + " has no emulated run to record");
  if (const auto why = skip_reason(*v, Backend::emulated, problem)) throw std::invalid_argument(variant + ": " + *why);
  std::unique_ptr<Instance> instance = lesson.make_instance(problem, seed);  // (the registry sets its problem)
  RunOptions options;
  options.seed = seed;
  UseDevice emulator(Backend::emulated);
  std::unique_ptr<Run> run = make->second(*instance, options);
  run->poison();
  run->upload();
  StepRecording r{variant, problem, {}};
  steps::start(block);
  try {
    run->compute();
  } catch (const NotApplicable& e) {  // a launcher the emulator does not run (a library's)
    steps::stop();
    throw std::invalid_argument(variant + ": " + e.what());
  } catch (...) {
    steps::stop();
    throw;
  }
  r.traces = steps::stop();
  run->download();
  if (const CheckResult c = run->check(); !c.passed)
    throw std::runtime_error(variant + " failed its check: " + c.message);
  return r;
}

Problem steps_problem_of(const Lesson& lesson, const std::string& text) {
  Problem p;
  if (lesson.parse_shape && text.find_first_not_of("0123456789") != std::string::npos) {  // not an n: a shape
    p = lesson.parse_shape(text);
  } else {
    std::size_t used = 0;
    long long n = -1;
    try {
      n = std::stoll(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size() || n < 1) {
      throw std::invalid_argument("'" + text + "' is not a size (1 or more)" +
                                  (lesson.parse_shape ? " or a shape (" + lesson.shape_help + ")" : std::string()));
    }
    p = lesson.problem(n);
  }
  const std::int64_t max_n = lesson.steps ? lesson.steps->max_n : 0;
  if (p.n > max_n) {
    throw std::invalid_argument("the step-by-step picture records small runs: n up to " + std::to_string(max_n));
  }
  return p;
}

std::vector<StepOperation> operations_in(const steps::Trace& trace, std::uint32_t phase, std::uint32_t array) {
  std::map<std::uint32_t, StepOperation> by_thread;
  for (const steps::Access& a : trace.accesses) {
    if (a.phase != phase || a.array != array) continue;
    StepOperation& op = by_thread[a.thread];
    op.thread = a.thread;
    auto& list = a.write ? op.writes : op.reads;
    if (std::none_of(list.begin(), list.end(), [&](const auto& e) { return e.first == a.element; })) {
      list.emplace_back(a.element, a.bits);
    }
  }
  std::vector<StepOperation> ops;
  for (auto& [thread, op] : by_thread) ops.push_back(std::move(op));
  return ops;
}

Hottest hottest_in(const steps::Trace& trace, std::uint32_t phase, std::uint32_t array) {
  std::map<std::uint32_t, std::size_t> writes;
  Hottest h;
  for (const steps::Access& a : trace.accesses) {
    if (!a.write || a.phase != phase || a.array != array) continue;
    if (const std::size_t w = ++writes[a.element]; w > h.writes) h = {a.element, w};
  }
  return h;
}

std::uint32_t main_array(const steps::Trace& trace) {
  std::vector<std::size_t> count(trace.arrays.size(), 0);
  for (const steps::Access& a : trace.accesses) ++count[a.array];
  return static_cast<std::uint32_t>(std::max_element(count.begin(), count.end()) - count.begin());
}

std::string format_step_value(std::uint32_t bits, const std::string& type) {
  if (type == "float") {
    float f;
    std::memcpy(&f, &bits, 4);
    return fmt::format("{:.4g}", f);
  }
  if (type == "int") return std::to_string(static_cast<std::int32_t>(bits));
  return std::to_string(bits);
}

namespace {

std::string element_list(const std::string& name, const std::vector<std::pair<std::uint32_t, std::uint32_t>>& list,
                         const std::string& type) {
  std::string text;
  for (const auto& [element, bits] : list) {
    text += fmt::format("{}{}[{}] = {}", text.empty() ? "" : ", ", name, element, format_step_value(bits, type));
  }
  return text;
}

}  // namespace

std::string format_shared_steps(const StepRecording& recording, std::size_t elements) {
  std::string out;
  if (recording.traces.empty()) return "No launch of " + recording.variant + " used shared memory.\n";
  for (const steps::Trace& t : recording.traces) {
    const std::uint32_t array = main_array(t);
    const steps::ArrayInfo& info = t.arrays[array];
    out += fmt::format("{} — block {}, {} threads; '{}' ({} × {}):\n", t.kernel, t.block, t.threads, info.name,
                       info.elements, info.type);
    for (std::uint32_t p = 0; p < t.after.size(); ++p) {
      const std::vector<StepOperation> ops = operations_in(t, p, array);
      std::size_t writers = 0;
      for (const StepOperation& op : ops) writers += op.writes.empty() ? 0 : 1;
      const std::string until = t.barriers[p] == steps::kBlockEnd ? std::string("until ") + steps::kBlockEnd
                                                                  : "until the __syncthreads() at " + t.barriers[p];
      const bool reads_only = writers == 0 && !ops.empty();  // (the block's end: a total read out)
      if (reads_only) {
        out += fmt::format("  phase {} ({}): {} thread{} read, none wrote\n", p, until, ops.size(),
                           ops.size() == 1 ? "" : "s");
      } else {
        out += fmt::format("  phase {} ({}): {} thread{} wrote\n", p, until, writers, writers == 1 ? "" : "s");
      }
      std::size_t shown = 0;
      for (const StepOperation& op : ops) {
        if (reads_only) {
          out += fmt::format("    thread {}: read {}\n", op.thread, element_list(info.name, op.reads, info.type));
          if (++shown == 4) break;
          continue;
        }
        if (op.writes.empty()) continue;
        if (shown++ == 4) {
          out += fmt::format("    … and {} more\n", writers - 4);
          break;
        }
        out += fmt::format("    thread {}: {}{}wrote {}\n", op.thread, op.reads.empty() ? "" : "read ",
                           element_list(info.name, op.reads, info.type) + (op.reads.empty() ? "" : "; "),
                           element_list(info.name, op.writes, info.type));
      }
      if (const Hottest hot = hottest_in(t, p, array); hot.writes > 1) {
        out += fmt::format("    contention: {}[{}] took {} writes (atomics) in this phase, one after another\n",
                           info.name, hot.element, hot.writes);
      }
      const std::vector<std::uint32_t>& words = t.after[p][array];
      if (info.element_bytes == 4 && !words.empty()) {
        std::string values;
        for (std::size_t e = 0; e < std::min(elements, words.size()); ++e) {
          values += (values.empty() ? "" : " ") + format_step_value(words[e], info.type);
        }
        out += fmt::format("    then {}[0 … {}]: {}{}\n", info.name, std::min(elements, words.size()) - 1, values,
                           words.size() > elements ? " …" : "");
      }
    }
  }
  return out;
}

}  // namespace gpulab
