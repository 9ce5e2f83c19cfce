// Lesson 01, vector add: the workload, its variants, what it counts and how it is checked.
#include "common/lesson.hpp"

#include <span>

#include "common/array_runs.hpp"
#include "problems/elementwise/elementwise_reference.hpp"
#include "vector_add/vector_add.hpp"

namespace gpulab {

namespace {

namespace va = vector_add;

// A float add rounds the exact sum once, so each element is within 2^-24 of the float64 sum (the
// problem's bound, the grader's too). A wrong index or a missed element is off by far more.
constexpr Tolerance kTolerance = elementwise::kAddTolerance;

using Span = std::span<const float>;

RunFactory cpu(const char* name, void (*fn)(Span, Span, std::span<float>)) {
  return cpu_array_run(name, kTolerance,
                       [fn](const Inputs& in, std::span<float> out, const Launch&) { fn(in[0], in[1], out); });
}

Counts counts_of(const Problem& p) {
  const auto n = static_cast<double>(p.n);
  // Each element: read a[i] and b[i], write c[i] (12 bytes) and one add.
  return {n, 12 * n, 8 * n, 4 * n};
}

Footprint footprint_of(const Problem& p) {
  const auto n = static_cast<double>(p.n);
  // Host: a, b (4 + 4), the float64 reference (8), and the largest run's buffers (GPU: pinned
  // a, b, c, 12). Device: a, b, c.
  return {28 * n, 12 * n};
}

std::unique_ptr<Instance> make_instance_of(const Problem& p, std::uint64_t seed) {
  auto in = random_inputs("vector_add", {"a", "b"}, static_cast<std::size_t>(p.n), seed, -1.0f, 1.0f);
  const auto& a = in->inputs[0];
  const auto& b = in->inputs[1];
  fill_expected(*in, [&](std::size_t i) { return elementwise::add(a[i], b[i]); });
  return in;
}

Lesson make_lesson() {
  Lesson l;
  l.title = "Vector add";
  l.summary = "c = a + b: kernels, threads and blocks, and why the copies cost more than the math";
  l.sources = {"kernels/vector_add/vector_add.cu", "lessons/01_vector_add/vector_add_program.cu"};
  l.size_help = "elements per vector";
  use_array_sizes(l);
  l.counts = counts_of;
  l.footprint = footprint_of;
  l.make_instance = make_instance_of;
  // Each kernel runs on the GPU and emulated on the CPU, from the same source.
  l.variants = {
      {"cpu_loop", "One CPU thread, a plain loop", {{Backend::cpu, cpu("cpu_loop", va::cpu_loop)}}},
      {"cpu_threads",
       "Every CPU core (OpenMP), each loop vectorised",
       {{Backend::cpu, cpu("cpu_threads", va::cpu_threads)}}},
      {"single_block", "One block of n threads: fails past the max threads per block",
       one_block_backends("single_block", kTolerance, binary(vector_add::single_block), "blocks")},
      {"blocks", "One thread per element over ceil(n / block) blocks, bounds guard",
       kernel_backends("blocks", kTolerance, binary(vector_add::blocks))},
      {"grid_stride", "A grid that fills the GPU once; each thread strides over the array",
       kernel_backends("grid_stride", kTolerance, binary(vector_add::grid_stride))},
      {"grid_stride_float4", "The grid-stride loop with 16-byte float4 loads; any n",
       kernel_backends("grid_stride_float4", kTolerance, binary(vector_add::grid_stride_float4))},
  };
  return l;
}

}  // namespace

// Lesson 01: c = a + b, the "hello world" of CUDA, and why copies dominate it.
const Lesson& vector_add_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
