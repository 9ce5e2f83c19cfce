// Lesson 13, reduction: the workload, its variants, what it counts and how it is checked.
#include "common/lesson.hpp"

#include <omp.h>

#include <bit>
#include <cmath>
#include <span>

#include "common/array_runs.hpp"
#include "problems/reduction/sum_reference.hpp"
#include "reduction/reduction.hpp"

namespace gpulab {

namespace {

namespace rd = reduction;

// [snippet:sum_error_bound]
// How far a float sum may be from the exact one. Each float addition rounds once, by at most
// u = 2^-24 of its result; a value that passes through d additions in a row (the depth of the
// order: n for a running sum, log2(n) for a balanced tree) picks up at most d of those roundings,
// so |float sum − exact| ≤ γ_d · Σ|x| with γ_d = d·u / (1 − d·u) (Higham, Accuracy and Stability
// of Numerical Algorithms, §4.2). The inputs are in [0, 1), so Σ|x| is the sum itself and the
// bound is relative. Past d·u = 1/8 the bound says little, and a running sum that large stops
// growing (2^24 + 0.5 rounds back to 2^24): such orders are not run there.
constexpr double kUnit = 0x1p-24;
constexpr double kDepthLimit = 0.125 / kUnit;  // d = 2^21

double gamma(double depth) { return depth * kUnit / (1 - depth * kUnit); }
// [/snippet]

std::size_t blocks(std::size_t n, std::size_t per_block) { return (n + per_block - 1) / per_block; }
double log2_up(std::size_t n) { return n <= 1 ? 0.0 : static_cast<double>(std::bit_width(n - 1)); }

// The depth of each order, for n elements (and the block size the launch takes).
using Depth = double (*)(std::size_t n, int block);

double running(std::size_t n, int) { return static_cast<double>(n); }
// Leaves of 256 in 8 lanes (32 deep, 3 to join the lanes), then a balanced tree over the leaves.
double pairwise(std::size_t n, int) { return 35 + log2_up(blocks(n, 256)) + 1; }
double threads(std::size_t n, int) { return pairwise(n, 0) + omp_get_max_threads(); }
// A tree of log2(256) levels per block, one element (or two) a thread, then an atomic per block.
double tree(std::size_t n, int) { return 8 + static_cast<double>(blocks(n, rd::kBlock)); }
double tree_of_pairs(std::size_t n, int) { return 1 + 8 + static_cast<double>(blocks(n, 2 * rd::kBlock)); }
// A thread's running sum, one addition per step over 1 to 4 float4s (a tree 4 deep), the tail
// element, 8 levels, the atomics; the grid is the current device's (the run is made on it).
double vector_loads(std::size_t n, int) {
  const double grid = static_cast<double>(rd::vector_loads_blocks(n));
  return 4 + std::ceil(static_cast<double>(n / 4) / (grid * rd::kBlock)) + 1 + 8 + grid;
}
// CUB does not document its order; this allows a tree over running sums of up to n / 2^16
// elements a thread (CUB's tiles give far fewer at every size here).
double cub(std::size_t n, int) { return static_cast<double>(n >> 16) + 64 + log2_up(n); }

ArrayCheck bound(Depth depth) {
  return [depth](const ArrayInstance& in, int block) { return Tolerance{gamma(depth(in.inputs[0].size(), block)), 0}; };
}

// The running sums are skipped where their bound would pass 12.5 % (see above).
SkipRule deep(Depth depth) {
  return [depth](const Problem& p, Backend) -> std::optional<std::string> {
    if (depth(static_cast<std::size_t>(p.n), 256) <= kDepthLimit) return std::nullopt;
    return "one running float sum over more than 2^21 elements: its error bound passes 12.5 % and past 2^24 "
           "elements the sum stops growing (2^24 + 0.5 rounds back to 2^24). See the lesson's error table; "
           "the other variants sum in trees";
  };
}

using Span = std::span<const float>;

RunFactory cpu(const char* name, Depth depth, void (*fn)(Span, std::span<float>)) {
  return cpu_array_run(name, bound(depth),
                       [fn](const Inputs& in, std::span<float> out, const Launch&) { fn(in[0], out); });
}

std::vector<std::pair<Backend, RunFactory>> kernels(const char* name, Depth depth, void (*fn)(Span, std::span<float>)) {
  return kernel_backends(name, bound(depth),
                         [fn](const Inputs& in, std::span<float> out, const Launch&) { fn(in[0], out); });
}

Counts counts_of(const Problem& p) {
  const auto n = static_cast<double>(p.n);
  // Read every element once (4 bytes), one addition each; one float back.
  return {n, 4 * n, 4 * n, 4};
}

Footprint footprint_of(const Problem& p) {
  const auto n = static_cast<double>(p.n);
  return {8 * n, 4 * n};  // x and its pinned copy; x on the device
}

std::unique_ptr<Instance> make_instance_of(const Problem& p, std::uint64_t seed) {
  // In [0, 1): no cancellation, so the relative error is the error of the order alone.
  auto in = random_inputs("reduction", {"x"}, static_cast<std::size_t>(p.n), seed, 0.0f, 1.0f);
  in->expected.assign(1, reduction_problem::sum(std::span<const float>(in->inputs[0])));
  return in;
}

Lesson make_lesson() {
  Lesson l;
  l.title = "Reduction";
  l.summary =
      "sum = Σ x: a tree in shared memory, warp shuffles, cooperative groups, float4 loads, and the rounding "
      "error of each order";
  l.sources = {"kernels/reduction/reduction.cu"};
  l.size_help = "elements to sum";
  use_array_sizes(l);
  // Empty, one, around a warp, a block and two blocks (2^k ± 1), a float4's remainder, a large odd size.
  l.test_sizes = {0, 1, 31, 32, 33, 255, 257, 511, 513, 1000, 1025, 4097, (1 << 16) + 1, (1 << 20) + 3};
  l.counts = counts_of;
  l.footprint = footprint_of;
  l.make_instance = make_instance_of;
  l.ladder_reference = "cub";
  // The app draws these variants' shared memory step by step, recorded on the emulator.
  l.steps =
      SharedMemorySteps{.variants = {"tree_divergent", "sequential_addressing", "add_during_load", "warp_shuffle"},
                        .problem = "256",
                        .max_n = 4096};
  l.variants = {
      {"cpu_sequential",
       "One CPU thread, one running float sum: n additions deep",
       {{Backend::cpu, cpu("cpu_sequential", running, rd::cpu_sequential)}},
       {},
       false,
       {deep(running)}},
      {"cpu_pairwise",
       "One CPU thread, pairwise halves down to vectorised leaves of 256: log2(n) deep",
       {{Backend::cpu, cpu("cpu_pairwise", pairwise, rd::cpu_pairwise)}}},
      {"cpu_threads",
       "Every CPU core (OpenMP), each summing its slice pairwise",
       {{Backend::cpu, cpu("cpu_threads", threads, rd::cpu_threads)}}},
      {"atomic_per_element",
       "A thread per element, each an atomicAdd on the one sum",
       kernel_backends("atomic_per_element", bound(running),
                       [](const Inputs& in, std::span<float> out, const Launch& launch) {
                         rd::atomic_per_element(in[0], out, launch.block);
                       }),
       {},
       false,
       {deep(running)}},
      {"tree_divergent",
       "A tree in shared memory a block, adders t % (2·stride) == 0: divergent warps",
       kernels("tree_divergent", tree, rd::tree_divergent),
       {},
       true},
      {"sequential_addressing",
       "The tree's adders the first `stride` threads: whole warps work or rest",
       kernels("sequential_addressing", tree, rd::sequential_addressing),
       {},
       true},
      {"add_during_load",
       "Two elements a thread, added as they load: half the blocks",
       kernels("add_during_load", tree_of_pairs, rd::add_during_load),
       {},
       true},
      {"warp_shuffle",
       "The last warp sums in registers with __shfl_down_sync: no barriers",
       kernels("warp_shuffle", tree_of_pairs, rd::warp_shuffle),
       {},
       true},
      {"cooperative_groups",
       "A warp tile and cg::reduce; the warps' sums through shared memory",
       kernels("cooperative_groups", tree_of_pairs, rd::cooperative_groups),
       {},
       true},
      {"vector_loads",
       "A fixed grid, float4 loads, many elements a thread",
       kernels("vector_loads", vector_loads, rd::vector_loads),
       {},
       true},
      {"cub", "cub::DeviceReduce::Sum: the CUDA library", kernels("cub", cub, rd::cub_sum), {}, true},
  };
  return l;
}

}  // namespace

// Lesson 13: sum = Σ x, the pattern every parallel algorithm meets first.
const Lesson& reduction_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
