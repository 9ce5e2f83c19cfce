// Lesson 01, vector add: the workload, its variants, what it counts and how it is checked.
#include "01_vector_add/vector_add_lesson.hpp"

#include <span>

#include <fmt/format.h>

#include "common/cuda_error.hpp"
#include "common/random.hpp"
#include "common/targets.hpp"
#include "vector_add/vector_add.hpp"

namespace gpulab {

namespace {

namespace va = vector_add;

// A float add rounds the exact sum once, so each element is within 2^-24 of the float64 sum;
// 1.2e-7 (2^-23) leaves a factor of two. A wrong index or a missed element is off by far more.
constexpr Tolerance kTolerance{1.2e-7, 0};

using Span = std::span<const float>;
using Launcher = void (*)(Span, Span, std::span<float>, int block);

std::string what(const char* variant, Backend backend) {
  return fmt::format("vector_add {} ({})", variant, to_string(backend));
}

// ---- CPU runs: the function reads the instance's inputs and writes a host output.
class CpuRun : public Run {
 public:
  using Function = void (*)(Span, Span, std::span<float>);
  CpuRun(const VectorAddInstance& in, const char* name, Function fn) : in_(in), name_(name), fn_(fn), c_(in.a.size()) {}
  void poison() override { gpulab::poison(c_); }
  void compute() override { fn_(in_.a, in_.b, c_); }
  CheckResult check() const override { return compare(c_, in_.expected, kTolerance, what(name_, Backend::cpu)); }

 private:
  const VectorAddInstance& in_;
  const char* name_;
  Function fn_;
  std::vector<float> c_;
};

// ---- Kernel runs, on the GPU or emulated (Target): host copies of the inputs (filled once,
// outside any timer), device buffers, and the launcher under test.
template <typename Target>
class KernelRun : public Run {
 public:
  KernelRun(const VectorAddInstance& in, const char* name, int block,
            std::function<void(Span, Span, std::span<float>, int)> launch)
      : in_(in),
        name_(name),
        block_(block),
        launch_(std::move(launch)),
        n_(in.a.size()),
        host_a_(n_, "a (host)"),
        host_b_(n_, "b (host)"),
        host_c_(n_, "c (host)"),
        a_(n_, "a"),
        b_(n_, "b"),
        c_(n_, "c") {
    std::copy(in.a.begin(), in.a.end(), host_a_.data());
    std::copy(in.b.begin(), in.b.end(), host_b_.data());
  }
  // [snippet:gpu_run_phases]
  void poison() override {
    c_.fill_bytes(kPoisonByte);
    gpulab::poison(host_c_.span());  // so a failed download cannot pass for a result either
  }
  void upload() override {
    a_.copy_from(host_a_.span());
    b_.copy_from(host_b_.span());
  }
  void compute() override { launch_(a_.span(), b_.span(), c_.span(), block_); }
  void download() override { c_.copy_to(host_c_.span()); }
  // [/snippet]
  CheckResult check() const override {
    return compare(host_c_.span(), in_.expected, kTolerance, what(name_, Target::backend));
  }
  int block() const override { return block_; }

 private:
  const VectorAddInstance& in_;
  const char* name_;
  int block_;
  std::function<void(Span, Span, std::span<float>, int)> launch_;
  std::size_t n_;
  typename Target::template HostBuffer<float> host_a_, host_b_, host_c_;
  typename Target::template DeviceBuffer<float> a_, b_, c_;
};

RunFactory cpu(const char* name, CpuRun::Function fn) {
  return factory<VectorAddInstance>(
      [name, fn](const VectorAddInstance& in, const RunOptions&) { return std::make_unique<CpuRun>(in, name, fn); });
}

template <typename Target>
RunFactory kernel_run(const char* name, Launcher launcher) {
  return factory<VectorAddInstance>([name, launcher](const VectorAddInstance& in, const RunOptions& options) {
    return std::make_unique<KernelRun<Target>>(in, name, options.block, launcher);
  });
}

// One block of n threads. Past the device's limit the launch is tried anyway, so the learner
// sees CUDA's own answer (the emulator gives the same), and the run is reported as skipped with
// the explanation.
template <typename Target>
RunFactory single_block_run(void (*launcher)(Span, Span, std::span<float>)) {
  return factory<VectorAddInstance>([launcher](const VectorAddInstance& in, const RunOptions&) -> std::unique_ptr<Run> {
    const auto n = static_cast<int>(std::min<std::size_t>(in.a.size(), 1u << 30));
    auto run = std::make_unique<KernelRun<Target>>(
        in, "single_block", n, [launcher](Span a, Span b, std::span<float> c, int) { launcher(a, b, c); });
    const int limit = Target::device().max_threads_per_block;
    if (in.a.size() > static_cast<std::size_t>(limit)) {
      try {
        run->upload();
        run->compute();
      } catch (const CudaError& e) {
        throw NotApplicable(
            fmt::format("a block holds at most {} threads on this GPU, so <<<1, {}>>> cannot launch. CUDA said: {}. "
                        "Variant 'blocks' spreads the elements over many blocks.",
                        limit, in.a.size(), e.cuda_message()));
      }
    }
    return run;
  });
}

// A kernel variant on the GPU (where the GPU backend is built) and emulated, from one source.
std::vector<std::pair<Backend, RunFactory>> kernel_backends(const char* name, [[maybe_unused]] Launcher gpu_launcher,
                                                            Launcher emulated_launcher) {
  std::vector<std::pair<Backend, RunFactory>> backends;
#if GPULAB_HAVE_CUDA
  if (gpu_launcher != nullptr) backends.emplace_back(Backend::gpu, kernel_run<GpuTarget>(name, gpu_launcher));
#endif
  backends.emplace_back(Backend::emulated, kernel_run<EmulatedTarget>(name, emulated_launcher));
  return backends;
}

Problem problem_of(std::int64_t n) { return {n, {{"n", n}}}; }

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
  auto in = std::make_unique<VectorAddInstance>();
  const auto n = static_cast<std::size_t>(p.n);
  in->a.resize(n);
  in->b.resize(n);
  in->expected.resize(n);
  fill_uniform(in->a, seed, 0, -1.0f, 1.0f);
  fill_uniform(in->b, seed, 1, -1.0f, 1.0f);
  const auto count = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < count; ++i) {
    in->expected[i] = static_cast<double>(in->a[i]) + static_cast<double>(in->b[i]);
  }
  return in;
}

Lesson make_lesson() {
  Lesson l;
  l.id = "01";
  l.name = "vector_add";
  l.title = "Vector add";
  l.summary = "c = a + b: kernels, threads and blocks, and why the copies cost more than the math";
  l.text_file = "docs/lessons/01-vector-add.md";
  l.source_file = "kernels/vector_add/vector_add.cu";
  l.size_help = "elements per vector";
  l.default_n = 1 << 20;
  l.max_n = std::int64_t{1} << 36;
  for (int p = 10; p <= 28; p += 2) l.sweep.push_back(std::int64_t{1} << p);
  // One element, under and over a warp, around a block of 1024, and a large odd size.
  l.test_sizes = {1, 31, 32, 1000, 1023, 1025, (1 << 20) + 3};
  l.problem = problem_of;
  l.counts = counts_of;
  l.footprint = footprint_of;
  l.make_instance = make_instance_of;
  // Each kernel runs on the GPU and emulated on the CPU, from the same source.
  std::vector<std::pair<Backend, RunFactory>> single_block;
#if GPULAB_HAVE_CUDA
  single_block.emplace_back(Backend::gpu, single_block_run<GpuTarget>(gpu::vector_add::single_block));
#endif
  single_block.emplace_back(Backend::emulated, single_block_run<EmulatedTarget>(emulated::vector_add::single_block));
  l.variants = {
      {"cpu_loop", "One CPU thread, a plain loop", {{Backend::cpu, cpu("cpu_loop", va::cpu_loop)}}},
      {"cpu_threads",
       "Every CPU core (OpenMP), each loop vectorised",
       {{Backend::cpu, cpu("cpu_threads", va::cpu_threads)}}},
      {"single_block", "One block of n threads: fails past the max threads per block", single_block, 1024},
      {"blocks", "One thread per element over ceil(n / block) blocks, bounds guard",
       kernel_backends("blocks", GPULAB_GPU_LAUNCHER(gpu::vector_add::blocks), emulated::vector_add::blocks)},
      {"grid_stride", "A grid that fills the GPU once; each thread strides over the array",
       kernel_backends("grid_stride", GPULAB_GPU_LAUNCHER(gpu::vector_add::grid_stride),
                       emulated::vector_add::grid_stride)},
      {"grid_stride_float4", "The grid-stride loop with 16-byte float4 loads; any n",
       kernel_backends("grid_stride_float4", GPULAB_GPU_LAUNCHER(gpu::vector_add::grid_stride_float4),
                       emulated::vector_add::grid_stride_float4)},
  };
  return l;
}

}  // namespace

const Lesson& vector_add_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
