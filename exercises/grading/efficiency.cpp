// Grading efficiency from the emulator's memory counts: see efficiency.hpp.
#include "grading/efficiency.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <sstream>

#include "base/mix.hpp"
#include "emulator/observers/memory_counts.hpp"
#include "grading/check.hpp"
#include "grading/driver.hpp"

namespace gpulab::grading {

namespace {

using emulated::MemoryKind;
using emulated::Traffic;

std::size_t element_bytes(const std::string& element) {
  if (element == "double" || element == "long" || element == "size_t") return 8;
  if (element == "unsigned char") return 1;
  return 4;  // float, int, unsigned int
}

// The counts line the driver prints (driver.hpp); false when there is none.
bool read_counts(const std::string& output, Traffic (&traffic)[emulated::kMemoryKinds]) {
  const auto at = output.find(kCountsTag);
  if (at == std::string::npos) return false;
  std::stringstream fields(output.substr(at + std::strlen(kCountsTag)));
  for (Traffic& t : traffic) fields >> t.requests >> t.units >> t.ideal >> t.bytes;
  return static_cast<bool>(fields);
}

struct Measured {
  double value = 0;
  std::string feedback;  // the learner's terms
  std::string name;      // what the case is called
};

Measured measure(const EfficiencyCheck& check, const Spec& spec, const Case& at,
                 const Traffic (&traffic)[emulated::kMemoryKinds]) {
  Measured m;
  const Traffic& loads = traffic[static_cast<int>(MemoryKind::global_load)];
  const Traffic& stores = traffic[static_cast<int>(MemoryKind::global_store)];
  if (check.measure == "global_load_efficiency" || check.measure == "global_store_efficiency") {
    const bool load = check.measure == "global_load_efficiency";
    const Traffic& t = load ? loads : stores;
    m.value = t.efficiency();
    m.name = load ? "global loads: the share of each 32-byte sector used"
                  : "global stores: the share of each 32-byte sector used";
    m.feedback =
        fmt::format("your global {} use {:.0f} % of each 32-byte sector {} ({:.1f} sectors per warp request)",
                    load ? "loads" : "stores", 100 * m.value, load ? "they fetch" : "they write", t.per_request());
    if (m.value < 0.5) {
      m.feedback += ": the threads of a warp " + std::string(load ? "read" : "write") +
                    " addresses far apart — neighbouring threads (threadIdx.x) should touch neighbouring "
                    "elements (in a row-major matrix: threadIdx.x along a row, not down a column)";
    } else if (m.value < 0.9) {
      m.feedback += ": some requests touch sectors they use only in part";
    }
  } else if (check.measure == "global_load_traffic") {
    double input_bytes = 0;
    for (const Param& p : spec.params) {
      if (p.pointer && p.input)
        input_bytes += static_cast<double>(evaluate(p.size, at.sizes) * element_bytes(p.element));
    }
    m.value = input_bytes == 0 ? 0 : static_cast<double>(loads.units) * 32 / input_bytes;
    m.name = "global loads: bytes fetched per byte of input";
    m.feedback = fmt::format(
        "your kernels fetch {:.1f}× the inputs' bytes from global memory: each input element is read about {:.0f} "
        "times",
        m.value, m.value);
    if (m.value > 16) {
      m.feedback +=
          " — a tile kept in shared memory lets a block fetch each element once and use it many times (lesson 05)";
    }
  } else {  // shared_bank_conflicts
    const Traffic& sl = traffic[static_cast<int>(MemoryKind::shared_load)];
    const Traffic& ss = traffic[static_cast<int>(MemoryKind::shared_store)];
    const double requests = static_cast<double>(sl.requests + ss.requests);
    m.value = requests == 0 ? 0 : static_cast<double>(sl.conflicts() + ss.conflicts()) / requests;
    m.name = "shared memory: bank conflicts per request";
    m.feedback = fmt::format("{:.2f} extra shared-memory passes per request (bank conflicts)", m.value);
    if (m.value > 0.5) {
      m.feedback +=
          ": lanes of a warp reach different words of one bank — pad each row of the tile by one element, or let "
          "threadIdx.x walk along a row";
    }
  }
  return m;
}

}  // namespace

std::vector<CaseResult> grade_efficiency(const Spec& spec, const Reference& reference, const Built& built,
                                         const GradeOptions& options, const Grade& so_far) {
  std::vector<CaseResult> results;
  if (!spec.efficiency || options.backend != Backend::emulated) return results;
  const Efficiency& eff = *spec.efficiency;
  const bool checks_passed =
      std::all_of(so_far.cases.begin(), so_far.cases.end(), [](const CaseResult& c) { return c.passed; });
  std::string failure;
  Traffic traffic[emulated::kMemoryKinds];
  if (!checks_passed) {
    failure = "not measured: the checks come first";
  } else {
    const CaseData data = make_case_data(spec, reference, eff.at, mix64(options.seed ^ 0x656666696369ull));
    const Limits limits{std::max(spec.time_limit_s, 120.0), spec.memory_limit_gb, false};
    const ChildResult run = run_case(spec, built.program, data, limits, 0, 0, {"env", "GPULAB_GRADE_COUNTS=1"});
    const CaseResult judged = judge(spec, reference, data, run, limits);
    if (!judged.passed) failure = "the efficiency case was wrong: " + judged.message;
    if (failure.empty() && !read_counts(run.output, traffic)) failure = "the emulator gave no memory counts";
  }
  for (const EfficiencyCheck& check : eff.checks) {
    CaseResult r;
    const Measured m = measure(check, spec, eff.at, traffic);
    r.label = "efficiency: " + m.name + ", at " + case_label(spec, eff.at);
    r.catches = "a kernel that wastes memory bandwidth";
    r.score = 0;
    if (!failure.empty()) {
      r.message = failure;
      results.push_back(std::move(r));
      continue;
    }
    for (const auto& [bound, score] : check.bands) {
      if (check.lower_is_better ? m.value <= bound : m.value >= bound) {
        r.score = score;
        break;
      }
    }
    r.passed = r.score >= check.bands.front().second;
    r.message = m.feedback + fmt::format("; score {:g}", r.score);
    if (!r.passed) {
      r.message += fmt::format(" (full marks {} {:g})", check.lower_is_better ? "at or below" : "from",
                               check.bands.front().first);
    }
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace gpulab::grading
