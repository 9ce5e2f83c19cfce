// Lesson 10, several GPUs: the problem is lesson 07's step on `gpus` × `batch` examples (batch
// per GPU), checked against the float64 step on the whole batch, as lesson 07 checks its own.
// On a machine with fewer GPUs than asked for, the GPU variants are skipped with the reason.
#include "common/lesson.hpp"

#include <cmath>
#include <cstring>
#include <regex>

#include <fmt/format.h>

#include "10_multi_gpu/multi_gpu_runs.hpp"
#include "10_multi_gpu/process_orders.hpp"
#include "10_multi_gpu/process_training.hpp"
#include "common/results.hpp"
#include "common/targets.hpp"
#include "mlp/mlp_cpu.hpp"
#include "mlp/mlp_data.hpp"
#include "mlp/mlp_library.hpp"
#include "mlp/mlp_train.hpp"
#include "multi_process/process_world.hpp"
#include "problems/mlp_step/step_check.hpp"

namespace gpulab {

namespace {

using mlp::Layout;
using mlp::StepInstance;
using namespace multi_gpu_runs;

// 0 in a problem: a GPU per process under mpirun, else every visible GPU (at least 1, so the CPU
// variants run anywhere).
int visible() {
  if (multi_process::started_by_mpirun()) return multi_process::world().size;
  return kGpuBuilt ? std::max(1, visible_gpus()) : 1;
}
int gpus_of(const Problem& p) {
  const std::int64_t gpus = p.dim("gpus", 0);
  return gpus > 0 ? static_cast<int>(gpus) : visible();
}

// ---- the CPU: the whole batch at once, and the data-parallel algorithm on shards

// `shards` 1: lesson 07's CPU step. More: each shard's gradient computed alone, then averaged and
// applied once, which is what the GPUs of data_parallel do.
class CpuRun : public Run {
 public:
  CpuRun(const MultiGpuInstance& in, std::string name, bool sharded)
      : in_(*in.step), name_(std::move(name)), shards_(sharded ? in.gpus : 1), params_(in_.initial.size()) {}
  void poison() override { gpulab::poison(params_); }
  void upload() override { std::copy(in_.initial.begin(), in_.initial.end(), params_.begin()); }
  void compute() override {
    if (shards_ == 1) {
      loss_ = mlp::cpu_step(in_.net, params_, in_.x, in_.t, in_.batch, mlp::kLearningRate, mlp::kLoss);
      return;
    }
    const int share = in_.batch / shards_;
    const auto xs = static_cast<std::size_t>(share) * in_.net.inputs(),
               ts = static_cast<std::size_t>(share) * in_.net.outputs();
    std::vector<float> sum(params_.size(), 0.0f), grads(params_.size());
    float loss = 0;
    for (int s = 0; s < shards_; ++s) {
      const auto k = static_cast<std::size_t>(s);
      loss += mlp::gradients<float, float>(
          in_.net, std::span<const float>(params_), std::span<const float>(in_.x).subspan(k * xs, xs),
          std::span<const float>(in_.t).subspan(k * ts, ts), share, mlp::kLoss, std::span<float>(grads));
      for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += grads[i];
    }
    const float average = 1.0f / static_cast<float>(shards_);
    for (std::size_t i = 0; i < params_.size(); ++i) params_[i] -= mlp::kLearningRate * (sum[i] * average);
    loss_ = loss * average;
  }
  CheckResult check() const override { return mlp::check_step(params_, loss_, in_, name_of(name_, Backend::cpu)); }

 private:
  const StepInstance& in_;
  std::string name_;
  int shards_;
  std::vector<float> params_;
  float loss_ = 0;
};

// ---- variants

using Backends = std::vector<std::pair<Backend, RunFactory>>;

Backends cpu(const std::string& name, bool sharded) {
  return {{Backend::cpu,
           factory<MultiGpuInstance>([=](const MultiGpuInstance& in, const RunOptions&) -> std::unique_ptr<Run> {
             return std::make_unique<CpuRun>(in, name, sharded);
           })}};
}

// A GPU variant (on the emulator it is skipped: it needs several GPUs and NCCL).
Backends split_backends(const std::string& name, Split split, mlp::GemmFunction gemm, bool graph) {
  return gpu_only(factory<MultiGpuInstance>([=](const MultiGpuInstance& in, const RunOptions&) {
                    return gpu_run(in, name, split, gemm, graph);
                  }),
                  "several GPUs and NCCL");
}

// A process per GPU (mpirun): rank 0's part, the others' told (process_orders.hpp).
Backends process_backends(const std::string& name, mlp::GemmFunction gemm, bool graph) {
  return gpu_only(factory<MultiGpuInstance>([=](const MultiGpuInstance& in, const RunOptions&) {
                    return process_run(in, name, gemm, graph);
                  }),
                  "several GPUs, NCCL and mpirun");
}

std::optional<std::string> needs_mpirun(const Problem& p) {
  if (!multi_process::started_by_mpirun()) {
    return "a process per GPU: start it with mpirun -np N lesson10_multi_gpu … (Open MPI)";
  }
  if (gpus_of(p) != multi_process::world().size) {
    return fmt::format("asks for {} GPUs; this job has {} process(es), one GPU each", gpus_of(p),
                       multi_process::world().size);
  }
  return std::nullopt;
}

// --train: on the CPU, a process per share under mpirun (or one process); on the GPUs, a thread
// per GPU in one process.
std::string train(const std::string& dataset, const std::string& variant, Backend backend, int epochs) {
  if (!variant.empty() && variant != "data_parallel") {
    throw std::invalid_argument("lesson 10 trains with data_parallel (and the same in one process beside it)");
  }
  if (backend == Backend::cpu) return cpu_train_report(dataset, epochs);
  if (multi_process::started_by_mpirun()) {
    throw std::invalid_argument(
        "under mpirun, --train runs on the CPU (--backend cpu); on GPUs its table times the process-per-GPU step "
        "(processes_cublas_graph)");
  }
  if (backend != Backend::gpu || !kGpuBuilt) {
    throw std::invalid_argument(
        "lesson 10 trains on the CPU (--backend cpu, a process per share under mpirun) or on "
        "GPUs (--backend gpu)");
  }
  return train_report(dataset, variant, backend, epochs);
}

// Weak scaling, as a learner would compare: N GPUs do N times the work of one, so the step over
// N GPUs is 100 % efficient when it takes as long as the fastest one-GPU step (any variant, the
// same network and examples per GPU). Against the data-parallel step on one GPU instead, a slow
// one-GPU step would flatter the figure.
std::vector<std::string> scaling_notes(const std::vector<Result>& results) {
  auto per_gpu = [](const Result& r) {
    return fmt::format("{}x{}x{}:{}", r.problem.dim("in", 0), r.problem.dim("hidden", 0), r.problem.dim("out", 0),
                       r.problem.dim("batch", 0));
  };
  auto timed = [](const Result& r) { return r.status == Status::passed && r.backend == Backend::gpu && r.kernel; };
  std::vector<std::string> lines;
  for (const Result& r : results) {
    // one_gpu on an N-GPU problem is one GPU doing the whole N × batch: no step over N GPUs.
    if (!timed(r) || r.problem.dim("gpus", 1) < 2 || r.variant == "one_gpu") continue;
    const Result* fastest = nullptr;
    for (const Result& one : results) {
      if (!timed(one) || one.problem.dim("gpus", 1) != 1 || per_gpu(one) != per_gpu(r)) continue;
      if (fastest == nullptr || one.kernel->median < fastest->kernel->median) fastest = &one;
    }
    const auto gpus = r.problem.dim("gpus", 1);
    if (fastest == nullptr) {
      lines.push_back(fmt::format("{} on {} GPUs: add --shape {}:1 to set it against the fastest one-GPU step",
                                  r.variant, gpus, per_gpu(r)));
      continue;
    }
    lines.push_back(
        fmt::format("{} on {} GPUs ({} examples each): {:.1f} µs a step against the fastest one-GPU step's {:.1f} µs "
                    "({}): {:.1f} % "
                    "efficient ({:.2f}× the examples a second of one GPU)",
                    r.variant, gpus, r.problem.dim("batch", 0), r.kernel->median * 1e3, fastest->kernel->median * 1e3,
                    fastest->variant, 100 * fastest->kernel->median / r.kernel->median,
                    static_cast<double>(gpus) * fastest->kernel->median / r.kernel->median));
  }
  return lines;
}

// ---- the lesson

Problem problem_from(const Layout& net, int batch, int gpus) {
  return {batch,
          {{"in", net.sizes[0]}, {"hidden", net.sizes[1]}, {"out", net.sizes[2]}, {"batch", batch}, {"gpus", gpus}}};
}

// The default family: 784 → 128 → 10, a batch of n per GPU, every visible GPU.
Problem problem_of(std::int64_t n) { return problem_from(Layout{{784, 128, 10}}, static_cast<int>(n), 0); }

// "784x128x10:128" (every visible GPU) or "784x128x10:128:2".
Problem parse_shape(const std::string& text) {
  static const std::regex form(R"((\d{1,5})x(\d{1,5})x(\d{1,5}):(\d{1,7})(?::(\d{1,3}))?)");
  std::smatch m;
  if (!std::regex_match(text, m, form)) throw std::invalid_argument("not of the form INxHIDDENxOUT:BATCH[:GPUS]");
  const Layout net{{std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3])}};
  mlp::check_layout(net);
  const int batch = std::stoi(m[4]);
  const int gpus = m[5].matched ? std::stoi(m[5]) : 0;
  if (batch < 1 || batch > (1 << 20)) throw std::invalid_argument("the batch per GPU must be 1 to 1048576");
  if (m[5].matched && (gpus < 1 || gpus > 64)) throw std::invalid_argument("GPUS must be 1 to 64");
  return problem_from(net, batch, gpus);
}

Counts counts_of(const Problem& p) {
  const Layout net = mlp::layout_of(p);
  const double batch = static_cast<double>(mlp::batch_of(p)) * gpus_of(p),
               params = static_cast<double>(net.parameters());
  const double io = 4 * batch * (net.inputs() + net.outputs());
  return {6 * batch * net.macs(), 8 * params + io, 4 * params * gpus_of(p) + io, 4 * params * gpus_of(p) + 4};
}

Footprint footprint_of(const Problem& p) {
  const Layout net = mlp::layout_of(p);
  const double batch = static_cast<double>(mlp::batch_of(p)) * gpus_of(p),
               params = static_cast<double>(net.parameters());
  const double io = batch * (net.inputs() + net.outputs());
  const double workspace = params + 3 * batch * (net.inputs() + net.sizes[1] + net.outputs());
  return {8 * io + (40 + 4 * gpus_of(p)) * params + 24 * batch * (net.inputs() + net.sizes[1] + net.outputs()),
          4 * (params + io + workspace)};
}

std::unique_ptr<Instance> make_instance_of(const Problem& p, std::uint64_t seed) {
  auto in = std::make_unique<MultiGpuInstance>();
  in->gpus = gpus_of(p);
  in->step = mlp::make_step_instance(mlp::layout_of(p), mlp::batch_of(p) * in->gpus, seed);
  return in;
}

// A problem on more GPUs than the machine has is skipped, with the count, before anything runs.
std::optional<std::string> needs_gpus(const Problem& p) {
  const int have = kGpuBuilt ? visible_gpus() : 0;
  if (gpus_of(p) <= have) return std::nullopt;
  return fmt::format("asks for {} GPU{}; {} visible here", gpus_of(p), gpus_of(p) == 1 ? "" : "s", have);
}

// --timeline: one step of a data-parallel variant on every GPU of the problem, phase by phase.
Timeline timeline_of(const Problem& p, const std::string& variant_name, int /*block*/) {
  const std::string name = variant_name.empty() ? "data_parallel_cublas_graph" : variant_name;
  if (!name.starts_with("data_parallel")) {
    throw NotApplicable("a timeline is recorded for data_parallel, data_parallel_graph and data_parallel_cublas_graph");
  }
  if (!kGpuBuilt) throw NotApplicable("a timeline is recorded on GPUs; this is an emulated-only build");
  if (const auto missing = needs_gpus(p)) throw NotApplicable(*missing);
  const auto instance = make_instance_of(p, 1);
  const auto& in = static_cast<const MultiGpuInstance&>(*instance);
  UseDevice on_gpu(Backend::gpu);
  Timeline t = step_timeline(in, name, name == "data_parallel_cublas_graph" ? mlp::cublas_gemm : nullptr,
                             name != "data_parallel");
  t.device = device_info().name;
  t.recorded = utc_now_iso8601();
  return t;
}

Lesson make_lesson() {
  Lesson l;
  l.title = "Several GPUs";
  l.summary = "Lesson 07's training step over several GPUs: data parallel with NCCL all-reduce, and model parallel";
  l.sources = {"kernels/multi_gpu/data_parallel.cpp", "kernels/mlp/mlp_layered.cu"};
  l.size_help = "examples per GPU, 784 → 128 → 10 on every visible GPU (--shape for others)";
  l.default_n = 128;
  l.max_n = 1 << 16;
  l.sweep = {32, 128, 512, 2048, 8192};
  l.test_sizes = {1, 31, 128};
  l.test_problems = {parse_shape("2x16x1:1:1"),    parse_shape("2x16x1:64:2"),     parse_shape("7x17x3:31:3"),
                     parse_shape("784x128x10:32"), parse_shape("784x128x10:33:4"), parse_shape("5x9x2:8:2")};
  l.problem = problem_of;
  l.parse_shape = parse_shape;
  l.shape_help = "INxHIDDENxOUT:BATCH[:GPUS] — BATCH examples per GPU on GPUS GPUs (default: every visible one)";
  l.counts = counts_of;
  l.footprint = footprint_of;
  l.make_instance = make_instance_of;
  l.training = Training{.report = train};
  l.other_processes = other_processes;
  l.summary_notes = scaling_notes;
  l.timeline = Timelines{.record = timeline_of};
  const mlp::GemmFunction cublas = mlp::cublas_gemm;
  l.variants = {
      {"cpu", "Lesson 07's CPU step on the whole batch (every GPU's examples)", cpu("cpu", false)},
      {"cpu_shards", "The data-parallel algorithm on the CPU: each GPU's share alone, gradients averaged",
       cpu("cpu_shards", true)},
      {"one_gpu", "The whole batch on GPU 0 alone (lesson 07's layered step, cuBLAS GEMMs)",
       split_backends("one_gpu", Split::one_gpu, cublas, false)},
      {"data_parallel", "Every GPU a share, gradients averaged by NCCL all-reduce; the lesson's kernels, one by one",
       split_backends("data_parallel", Split::data, nullptr, false)},
      {"data_parallel_graph", "data_parallel with each GPU's part of the step captured once as a CUDA graph",
       split_backends("data_parallel_graph", Split::data, nullptr, true)},
      {"data_parallel_cublas_graph", "data_parallel_graph with cuBLAS's GEMMs: for the larger networks",
       split_backends("data_parallel_cublas_graph", Split::data, cublas, true)},
      {"model_parallel", "The layers split over the GPUs, activations and deltas copied between them (cuBLAS GEMMs)",
       split_backends("model_parallel", Split::model, cublas, false)},
      {"processes_cublas_graph",
       "data_parallel_cublas_graph with a process per GPU, as on a cluster: mpirun -np N, NCCL bootstrapped over MPI",
       process_backends("processes_cublas_graph", cublas, true)},
  };
  for (Variant& v : l.variants) {
    if (v.name.starts_with("data_parallel") || v.name == "model_parallel")
      v.skips.push_back(unless_applies(needs_gpus));
    if (v.name.starts_with("processes")) v.skips.push_back(unless_applies(needs_mpirun));
  }
  return l;
}

}  // namespace

// Lesson 10: lesson 07's training step spread over the GPUs of one machine, by data (every GPU a
// share of the batch, gradients averaged with NCCL) and by model (the layers split over GPUs).
const Lesson& multi_gpu_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
