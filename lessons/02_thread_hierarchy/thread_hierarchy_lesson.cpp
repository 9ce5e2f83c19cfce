// Lesson 02, the thread hierarchy: the workload, its variants, the thread map.
#include "02_thread_hierarchy/thread_hierarchy_lesson.hpp"

#include <fmt/format.h>

#include "common/array_runs.hpp"

namespace gpulab {

namespace {

namespace th = thread_hierarchy;

// y = 2x + 1 in float: one multiply and one add, each rounded (or one fused rounding).
constexpr Tolerance kTolerance{2.4e-7, 1e-7};

void cpu_loop(const Inputs& in, std::span<float> out, const Shape&, int) {
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

template <typename Target, typename Record>
std::vector<th::ThreadRecord> record_on(std::size_t n, int block, Record record) {
  const std::size_t launched =
      std::size_t{(n + static_cast<std::size_t>(block) - 1) / static_cast<std::size_t>(block)} *
      static_cast<std::size_t>(block);
  typename Target::template DeviceBuffer<th::ThreadRecord> device(launched, "records");
  record(device.span(), n, block);
  std::vector<th::ThreadRecord> records(launched);
  device.copy_to(records);
  return records;
}

std::string thread_map_of(std::int64_t n, int block, Backend backend) {
  const auto records = record_threads(static_cast<std::size_t>(n), block, backend);
  const std::size_t blocks = records.size() / static_cast<std::size_t>(block);
  std::size_t outside = 0;
  std::string table = fmt::format("{:>6}  {:>6}  {:>4}  {:>4}  {:>7}\n", "block", "thread", "warp", "lane", "element");
  for (const auto& r : records) {
    outside += r.element < 0;
    table += fmt::format("{:>6}  {:>6}  {:>4}  {:>4}  {:>7}\n", r.block, r.thread, r.warp, r.lane,
                         r.element < 0 ? std::string("—") : std::to_string(r.element));
  }
  return fmt::format(
      "Thread map of <<<{}, {}>>> over n = {} elements, {}: {} threads launched, {} of them past the end of the "
      "array, stopped by the bounds guard (element —).\nWarps are 32 consecutive threads of a block.\n\n{}",
      blocks, block, n, backend == Backend::gpu ? "on the GPU" : "emulated on the CPU", records.size(), outside, table);
}

Lesson make_lesson() {
  Lesson l;
  l.id = "02";
  l.name = "thread_hierarchy";
  l.title = "Thread hierarchy";
  l.summary = "Grids, blocks, threads and warps: the global index, the 1024-thread limit, block sizes and occupancy";
  l.text_file = "docs/lessons/02-thread-hierarchy.md";
  l.source_file = "kernels/thread_hierarchy/thread_hierarchy.cu";
  l.size_help = "elements";
  use_array_sizes(l);
  l.default_n = 500000;  // the <<<1, 500000>>> that fails, by default
  l.test_sizes.push_back(500000);
  l.counts = counts_of;
  l.footprint = footprint_of;
  l.make_instance = make_instance_of;
  l.thread_map = thread_map_of;
  auto unary_fn = [](UnaryLauncher f) { return unary(f); };
  l.variants = {
      {"cpu_loop", "One CPU thread, a plain loop", {{Backend::cpu, cpu_array_run("cpu_loop", kTolerance, cpu_loop)}}},
      {"one_block", "<<<1, n>>>: all threads in one block, refused past 1024",
       one_block_backends("one_block", kTolerance, unary_fn(GPULAB_GPU_LAUNCHER(gpu::thread_hierarchy::one_block)),
                          unary_fn(emulated::thread_hierarchy::one_block), "blocks_1d"),
       1024},
      {"blocks_1d", "A 1-D grid of 1-D blocks: i = blockIdx.x * blockDim.x + threadIdx.x",
       kernel_backends("blocks_1d", kTolerance, unary_fn(GPULAB_GPU_LAUNCHER(gpu::thread_hierarchy::blocks_1d)),
                       unary_fn(emulated::thread_hierarchy::blocks_1d),
#if GPULAB_HAVE_CUDA
                       gpu::thread_hierarchy::blocks_1d_occupancy,
#else
                       {},
#endif
                       emulated::thread_hierarchy::blocks_1d_occupancy)},
      {"grid_2d", "A 2-D grid of 1-D blocks: rows of 256 blocks",
       kernel_backends("grid_2d", kTolerance, unary_fn(GPULAB_GPU_LAUNCHER(gpu::thread_hierarchy::grid_2d)),
                       unary_fn(emulated::thread_hierarchy::grid_2d))},
      {"block_3d", "3-D blocks of 8 x 8 x (block / 64) threads",
       kernel_backends("block_3d", kTolerance, unary_fn(GPULAB_GPU_LAUNCHER(gpu::thread_hierarchy::block_3d)),
                       unary_fn(emulated::thread_hierarchy::block_3d))},
      {"grid_stride", "A grid that fills the GPU once; each thread strides over the array",
       kernel_backends("grid_stride", kTolerance, unary_fn(GPULAB_GPU_LAUNCHER(gpu::thread_hierarchy::grid_stride)),
                       unary_fn(emulated::thread_hierarchy::grid_stride))},
  };
  return l;
}

}  // namespace

std::vector<th::ThreadRecord> record_threads(std::size_t n, int block, Backend backend) {
#if GPULAB_HAVE_CUDA
  if (backend == Backend::gpu) return record_on<GpuTarget>(n, block, gpu::thread_hierarchy::record_threads);
#endif
  if (backend != Backend::emulated) throw std::invalid_argument("the thread map runs on the GPU or emulated");
  return record_on<EmulatedTarget>(n, block, emulated::thread_hierarchy::record_threads);
}

const Lesson& thread_hierarchy_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
