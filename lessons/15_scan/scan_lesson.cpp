// Lesson 15, scan: the workload, its variants, what it counts and how it is checked.
#include "common/lesson.hpp"

#include <cstdio>
#include <span>

#include "common/exact_runs.hpp"
#include "common/random.hpp"
#include "problems/scan/scan_reference.hpp"
#include "scan/scan.hpp"

namespace gpulab {

namespace {

namespace sc = scan;
using Instance15 = ExactInstance<unsigned int, unsigned int>;
using Ints = std::span<const unsigned int>;
using Out = std::span<unsigned int>;

bool exclusive_of(const Problem& p) { return p.dim("exclusive", 0) != 0; }
// A stream compaction (N:compact:P) rather than a scan: the percentage of the values it keeps.
bool compaction_of(const Problem& p) { return p.dim("keep_percent", -1) >= 0; }
// It keeps the values below this: P % of 0 … 255, drawn uniformly.
unsigned int below_of(const Problem& p) {
  return static_cast<unsigned int>((256 * p.dim("keep_percent", 0) + 50) / 100);
}

// The problem says inclusive or exclusive; each launcher takes it.
ExactFunction<unsigned int, unsigned int> scanned(void (*fn)(Ints, Out, bool)) {
  return [fn](Ints x, Out y, const Problem& p, int) { fn(x, y, exclusive_of(p)); };
}
ExactFunction<unsigned int, unsigned int> compacted(void (*fn)(Ints, Out, unsigned int)) {
  return [fn](Ints x, Out y, const Problem& p, int) { fn(x, y, below_of(p)); };
}

// A scan's variants do not compact, and a compaction's do not scan.
std::vector<SkipRule> scans_only() {
  return {unless_applies([](const Problem& p) -> std::optional<std::string> {
    if (!compaction_of(p)) return std::nullopt;
    return "a scan; this problem is a stream compaction (the compact_ variants run it)";
  })};
}
std::vector<SkipRule> compactions_only() {
  return {unless_applies([](const Problem& p) -> std::optional<std::string> {
    if (compaction_of(p)) return std::nullopt;
    return "a stream compaction: it runs on --shape N:compact (or N:compact:P, keeping P %)";
  })};
}

// --n N: an inclusive scan; --shape N:exclusive (or N:inclusive), or N:compact[:P].
Problem problem_of(std::int64_t n) { return {n, {{"n", n}, {"exclusive", 0}}}; }

Problem parse_shape(const std::string& text) {
  long long n = 0;
  char kind[16] = {};
  int percent = 50, used = 0;
  const bool read = std::sscanf(text.c_str(), "%lld:%15[a-z]%n", &n, kind, &used) == 2;
  const std::string k = kind, rest = read ? text.substr(static_cast<std::size_t>(used)) : "";
  const bool compact = read && k == "compact" &&
                       (rest.empty() || (std::sscanf(rest.c_str(), ":%d", &percent) == 1 &&
                                         rest == ":" + std::to_string(percent) && percent >= 0 && percent <= 100));
  if (!read || (!compact && ((k != "inclusive" && k != "exclusive") || !rest.empty()))) {
    throw std::invalid_argument("'" + text +
                                "' is not N:inclusive, N:exclusive or N:compact[:P] with P a percentage "
                                "(e.g. 268435456:exclusive, 268435456:compact:10)");
  }
  if (n < 0 || n > (std::int64_t{1} << 32)) throw std::invalid_argument("N must be 0 to 2^32 elements");
  if (compact) return {n, {{"n", n}, {"keep_percent", percent}}};
  return {n, {{"n", n}, {"exclusive", k == "exclusive" ? 1 : 0}}};
}

// A scan: one read and one write of 4 bytes an element, one addition. A compaction: a read an
// element, a write a kept one (P % of them), one comparison.
Counts counts_of(const Problem& p) {
  const auto n = static_cast<double>(p.n);
  if (compaction_of(p)) {
    const double kept = n * static_cast<double>(p.dim("keep_percent", 0)) / 100;
    return {n, 4 * n + 4 * kept, 4 * n, 4 * (kept + 1)};
  }
  return {n, 8 * n, 4 * n, 4 * n};
}

Footprint footprint_of(const Problem& p) {
  const auto n = static_cast<double>(p.n);
  return {20 * n, 8 * n};  // x, the reference, pinned x and y; x and y on the device
}

std::unique_ptr<Instance> make_instance_of(const Problem& p, std::uint64_t seed) {
  auto in = std::make_unique<Instance15>();
  in->topic = "scan";
  in->element = "y";
  const auto n = static_cast<std::size_t>(p.n);
  // Whole numbers 0 … 255 (bytes drawn as every input is): the sums wrap at 2^32 past 16.8
  // million elements, which every variant must do the same way.
  std::vector<unsigned char> bytes(n);
  fill_bytes(bytes, seed, 0, 0.0, 0);
  in->x.assign(bytes.begin(), bytes.end());
  if (compaction_of(p)) {  // the count, then the kept values in order
    const unsigned int below = below_of(p);
    in->element = "y (y[0] the count, y[1 …] the kept values)";
    in->expected.push_back(0);
    for (const unsigned int v : in->x) {
      if (v < below) in->expected.push_back(v);
    }
    in->expected[0] = static_cast<unsigned int>(in->expected.size() - 1);
    return in;
  }
  in->expected = scan_problem::scan(std::span<const unsigned int>(in->x), exclusive_of(p));
  return in;
}

Lesson make_lesson() {
  Lesson l;
  l.title = "Scan";
  l.summary =
      "y = prefix sums of x: Hillis–Steele and Blelloch in a block, scan-then-propagate, one pass with "
      "decoupled look-back; stream compaction";
  l.sources = {"kernels/scan/scan.cu"};
  l.size_help = "elements to scan (--shape N:exclusive for an exclusive scan)";
  l.default_n = 1 << 24;
  l.max_n = std::int64_t{1} << 32;
  for (int e = 10; e <= 28; e += 2) l.sweep.push_back(std::int64_t{1} << e);
  l.problem = problem_of;
  l.parse_shape = parse_shape;
  l.shape_help =
      "N:inclusive or N:exclusive, e.g. 268435456:exclusive; N:compact:P, a stream compaction keeping P % "
      "(50 if left out)";
  // Empty, one, a warp ± 1, a block and two (2^k ± 1), a look-back tile ± 1, past 2^24 (the sums
  // wrap), both kinds.
  for (const char* shape :
       {"0:inclusive", "1:inclusive", "1:exclusive", "31:inclusive", "33:exclusive", "255:inclusive", "257:exclusive",
        "511:inclusive", "513:inclusive", "4095:exclusive", "4097:inclusive", "65537:exclusive", "262145:inclusive",
        "1048579:exclusive", "1048579:inclusive",
        // compactions: nothing, one, none kept, all kept, a tile ± 1, several tiles
        "0:compact", "1:compact:100", "1000:compact:0", "1000:compact:100", "4095:compact", "4097:compact:10",
        "65537:compact:90", "1048579:compact"}) {
    l.test_problems.push_back(parse_shape(shape));
  }
  l.counts = counts_of;
  l.footprint = footprint_of;
  l.make_instance = make_instance_of;
  l.ladder_reference = "cub";
  // The app draws these variants' shared memory step by step, recorded on the emulator.
  l.steps = SharedMemorySteps{.variants = {"hillis_steele", "blelloch"}, .problem = "256", .max_n = 4096};
  l.variants = {
      {"cpu_sequential", "One CPU thread, the running sum", exact_cpu("cpu_sequential", scanned(sc::cpu_sequential))},
      {"cpu_std", "std::inclusive_scan / std::exclusive_scan", exact_cpu("cpu_std", scanned(sc::cpu_std))},
      {"cpu_threads", "Every CPU core (OpenMP): slice sums, their scan, each slice scanned from its offset",
       exact_cpu("cpu_threads", scanned(sc::cpu_threads))},
      {"hillis_steele",
       "Hillis–Steele in a block (n·log n additions), then scan-then-propagate",
       exact_kernels("hillis_steele", scanned(sc::hillis_steele)),
       {},
       true},
      {"blelloch",
       "Blelloch's up- and down-sweep in a block (2n additions), then scan-then-propagate",
       exact_kernels("blelloch", scanned(sc::blelloch)),
       {},
       true},
      {"decoupled_lookback",
       "One pass: tiles of 4096 in registers and shuffles, offsets by decoupled look-back",
       exact_kernels("decoupled_lookback", scanned(sc::decoupled_lookback)),
       {},
       true},
      {"cub", "cub::DeviceScan: the CUDA library", exact_kernels("cub", scanned(sc::cub_scan)), {}, true},
      // Stream compaction, the scan's application (--shape N:compact:P).
      {"compact_cpu", "Stream compaction on one CPU thread: std::copy_if",
       exact_cpu("compact_cpu", compacted(sc::compact_cpu))},
      {"compact_three_pass",
       "Stream compaction: flags, their decoupled look-back scan, a scatter (three passes)",
       exact_kernels("compact_three_pass", compacted(sc::compact_three_pass)),
       {},
       true},
      {"compact_one_pass",
       "Stream compaction in one pass: look-back over kept counts, kept values packed per warp",
       exact_kernels("compact_one_pass", compacted(sc::compact_one_pass)),
       {},
       true},
      {"compact_cub",
       "cub::DeviceSelect::If: the CUDA library's stream compaction",
       exact_kernels("compact_cub", compacted(sc::compact_cub)),
       {},
       true},
  };
  for (Variant& v : l.variants) v.skips = v.name.starts_with("compact_") ? compactions_only() : scans_only();
  return l;
}

}  // namespace

// Lesson 15: prefix sums, the pattern behind stream compaction, radix sort and allocation.
const Lesson& scan_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
