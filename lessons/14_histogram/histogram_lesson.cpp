// Lesson 14, histogram: the workload, its variants, what it counts and how it is checked.
#include "common/lesson.hpp"

#include <cstdio>
#include <span>

#include "common/exact_runs.hpp"
#include "common/random.hpp"
#include "histogram/histogram.hpp"
#include "problems/histogram/histogram_reference.hpp"

namespace gpulab {

namespace {

namespace hg = histogram;
constexpr std::size_t kBins = hg::kBins;
constexpr std::int64_t kMaxBytes = (std::int64_t{1} << 32) - 1;  // a bin counts in 32 bits

using Instance14 = ExactInstance<unsigned char, unsigned int>;
using Bytes = std::span<const unsigned char>;
using Bins = std::span<unsigned int>;

ExactFunction<unsigned char, unsigned int> fixed(void (*fn)(Bytes, Bins)) {
  return [fn](Bytes x, Bins b, const Problem&, int) { fn(x, b); };
}

// --n N: uniform bytes; --shape N:SKEW: SKEW % of the bytes the one value 42, the rest uniform.
Problem problem_of(std::int64_t n) { return {n, {{"n", n}, {"skew", 0}}}; }

Problem parse_shape(const std::string& text) {
  long long n = 0;
  int skew = -1;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%lld:%d%c", &n, &skew, &tail) != 2) {
    throw std::invalid_argument("'" + text + "' is not N:SKEW (e.g. 268435456:100)");
  }
  if (n < 0 || n > kMaxBytes) throw std::invalid_argument("N must be 0 to 2^32 - 1 bytes (a bin counts in 32 bits)");
  if (skew < 0 || skew > 100) throw std::invalid_argument("SKEW is a percentage, 0 to 100");
  return {n, {{"n", n}, {"skew", skew}}};
}

// One byte read an element, 256 counts written back.
Counts counts_of(const Problem& p) {
  const auto n = static_cast<double>(p.n);
  return {0, n, n, 4 * kBins};
}

Footprint footprint_of(const Problem& p) {
  const auto n = static_cast<double>(p.n);
  return {2 * n, n};  // x and its pinned copy; x on the device
}

std::unique_ptr<Instance> make_instance_of(const Problem& p, std::uint64_t seed) {
  auto in = std::make_unique<Instance14>();
  in->topic = "histogram";
  in->element = "bin";
  in->x.resize(static_cast<std::size_t>(p.n));
  fill_bytes(in->x, seed, 0, static_cast<double>(p.dim("skew", 0)) / 100, histogram_problem::kCommonValue);
  in->expected.resize(kBins);
  histogram_problem::count(std::span<const unsigned char>(in->x), std::span<unsigned int>(in->expected));
  return in;
}

Lesson make_lesson() {
  Lesson l;
  l.title = "Histogram";
  l.summary =
      "bins[v] = count of v: atomics, privatised shared-memory bins, per-warp copies, and what skewed data "
      "does to contention";
  l.sources = {"kernels/histogram/histogram.cu"};
  l.size_help = "bytes to count (--shape N:SKEW for skewed data)";
  l.default_n = 1 << 24;
  l.max_n = kMaxBytes;
  for (int e = 10; e <= 28; e += 2) l.sweep.push_back(std::int64_t{1} << e);
  l.problem = problem_of;
  l.parse_shape = parse_shape;
  l.shape_help = "N:SKEW, SKEW the % of bytes that are one value (0 uniform, 100 all equal), e.g. 268435456:100";
  // Empty, one, around a warp, a block and a uint4 (2^k ± 1), large and odd; uniform, half one
  // value, and all one value.
  for (const char* shape : {"0:0", "1:0", "15:0", "17:0", "31:100", "255:0", "257:50", "1000:0", "4097:100", "65537:0",
                            "65537:100", "1048579:0", "1048579:50", "1048579:100"}) {
    l.test_problems.push_back(parse_shape(shape));
  }
  l.counts = counts_of;
  l.footprint = footprint_of;
  l.make_instance = make_instance_of;
  l.ladder_reference = "cub";
  // The app draws these variants' shared memory step by step, recorded on the emulator.
  l.steps = SharedMemorySteps{.variants = {"shared_privatized", "warp_copies"}, .problem = "4096:90", .max_n = 4096};
  l.variants = {
      {"cpu_sequential", "One CPU thread: bins[x[i]]++", exact_cpu("cpu_sequential", fixed(hg::cpu_sequential))},
      {"cpu_threads", "Every CPU core (OpenMP), a private histogram each",
       exact_cpu("cpu_threads", fixed(hg::cpu_threads))},
      {"global_atomics", "A thread per byte, an atomicAdd on its bin in global memory",
       exact_kernels<unsigned char, unsigned int>(
           "global_atomics", [](Bytes x, Bins b, const Problem&, int block) { hg::global_atomics(x, b, block); })},
      {"shared_privatized",
       "A block's own bins in shared memory, added to global memory once",
       exact_kernels("shared_privatized", fixed(hg::shared_privatized)),
       {},
       true},
      {"warp_runs",
       "A warp's own bins, 16 bytes a load, a run of equal bytes one atomic",
       exact_kernels("warp_runs", fixed(hg::warp_runs)),
       {},
       true},
      {"warp_copies",
       "The warp's own bins without the runs, two 16-byte loads in flight a thread",
       exact_kernels("warp_copies", fixed(hg::warp_copies)),
       {},
       true},
      {"cub",
       "cub::DeviceHistogram::HistogramEven: the CUDA library",
       exact_kernels("cub", fixed(hg::cub_histogram)),
       {},
       true},
  };
  return l;
}

}  // namespace

// Lesson 14: bins[v] = how many bytes equal v, and the contention of atomics.
const Lesson& histogram_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
