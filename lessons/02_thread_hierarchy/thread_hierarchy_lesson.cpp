// Lesson 02, the thread hierarchy: the workload, its variants, the thread map.
#include "common/lesson.hpp"

#include <fmt/format.h>

#include "common/array_runs.hpp"
#include "thread_hierarchy/thread_hierarchy.hpp"

namespace gpulab {

namespace {

namespace th = thread_hierarchy;

// y = 2x + 1 in float: one multiply and one add, each rounded (or one fused rounding).
constexpr Tolerance kTolerance{2.4e-7, 1e-7};

void cpu_loop(const Inputs& in, std::span<float> out, const Launch&) {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = 2.0f * in[0][i] + 1.0f;
}

// Per element: read x, write y (8 bytes); a multiply and an add.
Counts counts_of(const Problem& p) {
  const auto n = static_cast<double>(p.n);
  return {2 * n, 8 * n, 4 * n, 4 * n};
}

Footprint footprint_of(const Problem& p) {
  const auto n = static_cast<double>(p.n);
  return {20 * n, 8 * n};  // host: x, the float64 reference, pinned x and y; device: x and y
}

std::unique_ptr<Instance> make_instance_of(const Problem& p, std::uint64_t seed) {
  auto in = random_inputs("thread_hierarchy", {"x"}, static_cast<std::size_t>(p.n), seed, -1.0f, 1.0f);
  const auto& x = in->inputs[0];
  fill_expected(*in, [&](std::size_t i) { return 2.0 * x[i] + 1.0; });
  return in;
}

// What every thread of a one-thread-per-element launch over n elements did, on the GPU or emulated.
std::vector<th::ThreadRecord> record_threads(std::size_t n, int block, Backend backend) {
  const std::size_t launched =
      (n + static_cast<std::size_t>(block) - 1) / static_cast<std::size_t>(block) * static_cast<std::size_t>(block);
  if (backend == Backend::cpu) throw std::invalid_argument("the thread map runs on the GPU or emulated");
  return record_on<th::ThreadRecord>(backend, launched,
                                     [&](auto span) { thread_hierarchy::record_threads(span, n, block); });
}

ThreadMap thread_map_of(std::int64_t n, int block, Backend backend, const std::string&) {
  ThreadMap map;
  map.backend = backend;
  map.cols = n;
  map.block_x = block;
  map.grid_x = static_cast<int>((n + block - 1) / block);
  map.launch = fmt::format("<<<{}, {}>>>", map.grid_x, block);
  map.mapping = "i = blockIdx.x * blockDim.x + threadIdx.x";
  for (const auto& r : record_threads(static_cast<std::size_t>(n), block, backend)) {
    ThreadCell t;
    t.block_x = static_cast<int>(r.block);
    t.thread_x = static_cast<int>(r.thread);
    t.warp = static_cast<int>(r.warp);
    t.lane = static_cast<int>(r.lane);
    t.col = std::int64_t{t.block_x} * block + t.thread_x;  // where the index points, inside or not
    t.is_inside = r.element >= 0;
    map.threads.push_back(t);
  }
  return map;
}

Lesson make_lesson() {
  Lesson l;
  l.title = "Thread hierarchy";
  l.summary = "Grids, blocks, threads and warps: the global index, the 1024-thread limit, block sizes and occupancy";
  l.sources = {"kernels/thread_hierarchy/thread_hierarchy.cu"};
  l.size_help = "elements";
  use_array_sizes(l);
  l.default_n = 500000;  // the <<<1, 500000>>> that fails, by default
  l.test_sizes.push_back(500000);
  l.counts = counts_of;
  l.footprint = footprint_of;
  l.make_instance = make_instance_of;
  // (The mapping it records: the Visualize view counts its sectors.)
  l.thread_map = ThreadMapping{.record = thread_map_of, .max_n = 4096, .variants = {"blocks_1d"}};
  auto unary_fn = [](UnaryLauncher f) { return unary(f); };
  l.variants = {
      {"cpu_loop", "One CPU thread, a plain loop", {{Backend::cpu, cpu_array_run("cpu_loop", kTolerance, cpu_loop)}}},
      {"one_block", "<<<1, n>>>: all threads in one block, refused past 1024",
       one_block_backends("one_block", kTolerance, unary_fn(thread_hierarchy::one_block), "blocks_1d")},
      {"blocks_1d", "A 1-D grid of 1-D blocks: i = blockIdx.x * blockDim.x + threadIdx.x",
       kernel_backends("blocks_1d", kTolerance, unary_fn(thread_hierarchy::blocks_1d),
                       thread_hierarchy::blocks_1d_occupancy)},
      {"grid_2d", "A 2-D grid of 1-D blocks: rows of 256 blocks",
       kernel_backends("grid_2d", kTolerance, unary_fn(thread_hierarchy::grid_2d))},
      {"block_3d", "3-D blocks of 8 x 8 x (block / 64) threads",
       kernel_backends("block_3d", kTolerance, unary_fn(thread_hierarchy::block_3d))},
      {"grid_stride", "A grid that fills the GPU once; each thread strides over the array",
       kernel_backends("grid_stride", kTolerance, unary_fn(thread_hierarchy::grid_stride))},
  };
  return l;
}

}  // namespace

// Lesson 02: grids, blocks and threads; the global index; <<<1, 500000>>> refused and fixed;
// grid-stride loops; a block-size sweep with occupancy; the thread map.
const Lesson& thread_hierarchy_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
