// Lesson 10, several GPUs: the problem is lesson 07's step on `gpus` × `batch` examples (batch
// per GPU), checked against the float64 step on the whole batch, as lesson 07 checks its own.
// On a machine with fewer GPUs than asked for, the GPU variants are skipped with the reason.
#include "10_multi_gpu/multi_gpu_lesson.hpp"

#include <cmath>
#include <cstring>
#include <regex>

#include <fmt/format.h>

#include "07_tiny_network/step_check.hpp"
#include "common/targets.hpp"
#include "mlp/mlp_cpu.hpp"
#include "mlp/mlp_data.hpp"
#include "mlp/mlp_train.hpp"
#if GPULAB_HAVE_CUDA
#include "mlp/mlp_library.hpp"
#include "multi_gpu/multi_gpu.hpp"
#include "multi_gpu/nccl_library.hpp"
#endif

namespace gpulab {

namespace {

using mlp::Layout;
using mlp::StepInstance;

// Lesson 07's step on gpus × batch examples.
struct MultiGpuInstance : Instance {
  std::unique_ptr<StepInstance> step;
  int gpus = 1;
};

// 0 in a problem: every visible GPU (at least 1, so the CPU variants run anywhere).
int visible() {
#if GPULAB_HAVE_CUDA
  return std::max(1, gpu::multi_gpu::visible_gpus());
#else
  return 1;
#endif
}
int gpus_of(const Problem& p) {
  const std::int64_t gpus = p.dim("gpus", 0);
  return gpus > 0 ? static_cast<int>(gpus) : visible();
}

std::string name_of(const std::string& variant, Backend backend) {
  return "multi_gpu " + variant + " (" + std::string(to_string(backend)) + ")";
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

#if GPULAB_HAVE_CUDA
namespace mg = gpu::multi_gpu;

enum class Split { one_gpu, data, model };

// A step over GPUs: upload sends the parameters and the batch, compute is the step, download
// brings every GPU's parameters back; check() compares GPU 0's (or the gathered ones) with float64
// and, for data parallelism, every other GPU's with GPU 0's bit for bit.
class MultiGpuRun : public Run {
 public:
  MultiGpuRun(const MultiGpuInstance& in, std::string name, Split split, mlp::GemmFunction gemm, bool graph)
      : in_(*in.step), name_(std::move(name)), split_(split) {
    if (split == Split::model) {
      model_.emplace(in_.net, in.gpus, in_.batch, gemm);
      copies_.assign(1, std::vector<float>(in_.initial.size()));
    } else {
      const int used = split == Split::one_gpu ? 1 : in.gpus;
      data_.emplace(in_.net, used, in_.batch / used, gemm, graph);
      copies_.assign(static_cast<std::size_t>(used), std::vector<float>(in_.initial.size()));
    }
  }
  void poison() override {
    for (auto& c : copies_) gpulab::poison(c);
  }
  void upload() override {
    if (model_) {
      model_->set_parameters(in_.initial);
      model_->set_batch(in_.x, in_.t);
    } else {
      data_->set_parameters(in_.initial);
      data_->set_batch(in_.x, in_.t);
    }
  }
  void compute() override {
    if (model_) {
      model_->step(mlp::kLearningRate, mlp::kLoss);
    } else {
      data_->step(mlp::kLearningRate, mlp::kLoss);
    }
  }
  void download() override {
    if (model_) {
      model_->parameters(copies_.front());
      loss_ = model_->loss();
      return;
    }
    for (std::size_t g = 0; g < copies_.size(); ++g) data_->parameters(static_cast<int>(g), copies_[g]);
    loss_ = data_->loss();
  }
  CheckResult check() const override {
    const std::string what = name_of(name_, Backend::gpu);
    for (std::size_t g = 1; g < copies_.size(); ++g) {
      if (std::memcmp(copies_[g].data(), copies_.front().data(), copies_[g].size() * sizeof(float)) == 0) continue;
      std::size_t i = 0;
      while (copies_[g][i] == copies_.front()[i]) ++i;
      CheckResult r;
      r.passed = false;
      r.mismatches = 1;
      r.checked = copies_[g].size();
      r.message = fmt::format(
          "{}: GPU {}'s parameters differ from GPU 0's after the step (first at {}: {:.9g} and {:.9g}): "
          "the GPUs no longer train the same network",
          what, g, i, copies_[g][i], copies_.front()[i]);
      return r;
    }
    return mlp::check_step(copies_.front(), loss_, in_, what);
  }
  std::string note() const override {
    if (model_) {
      std::string layers;
      for (int l = 0; l < in_.net.layers(); ++l)
        layers += fmt::format("{}layer {} on GPU {}", l ? ", " : "", l, model_->device_of_layer(l));
      return layers;
    }
    if (split_ == Split::data && copies_.size() > 1) {
      return fmt::format("{} GPUs, {} examples each; NCCL {}, the same parameters on every GPU", copies_.size(),
                         in_.batch / static_cast<int>(copies_.size()), mg::nccl().version);
    }
    return {};
  }

 private:
  const StepInstance& in_;
  std::string name_;
  Split split_;
  std::optional<mg::DataParallel> data_;
  std::optional<mg::ModelParallel> model_;
  std::vector<std::vector<float>> copies_;
  float loss_ = 0;
};

RunFactory gpu_run(const std::string& name, Split split, mlp::GemmFunction gemm, bool graph) {
  return factory<MultiGpuInstance>([=](const MultiGpuInstance& in, const RunOptions&) -> std::unique_ptr<Run> {
    const int have = mg::visible_gpus();
    if (split != Split::one_gpu && in.gpus > have) {
      throw NotApplicable(fmt::format("asks for {} GPUs; {} visible here", in.gpus, have));
    }
    if (split == Split::data && in.gpus > 1) {
      try {
        mg::nccl();
      } catch (const mg::NcclUnavailable& e) {
        throw NotApplicable(e.what());
      }
    }
    return std::make_unique<MultiGpuRun>(in, name, split, gemm, graph);
  });
}
#endif

// ---- variants

using Backends = std::vector<std::pair<Backend, RunFactory>>;

Backends cpu(const std::string& name, bool sharded) {
  return {{Backend::cpu,
           factory<MultiGpuInstance>([=](const MultiGpuInstance& in, const RunOptions&) -> std::unique_ptr<Run> {
             return std::make_unique<CpuRun>(in, name, sharded);
           })}};
}

#if GPULAB_HAVE_CUDA
#define GPULAB_SPLIT(name, split, gemm, graph)                  \
  Backends {                                                    \
    {Backend::gpu, gpu_run(name, Split::split, gemm, graph)}, { \
      Backend::emulated, not_emulated("several GPUs and NCCL")  \
    }                                                           \
  }
#else
#define GPULAB_SPLIT(name, split, gemm, graph)                   \
  Backends {                                                     \
    { Backend::emulated, not_emulated("several GPUs and NCCL") } \
  }
#endif

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

// ---- training: the same run on one GPU and on every GPU

#if GPULAB_HAVE_CUDA
std::string train_report(const std::string& dataset_name, const std::string& variant, Backend backend, int epochs) {
  const auto dataset = mlp::parse_dataset(dataset_name);
  if (!dataset) throw std::invalid_argument("unknown dataset '" + dataset_name + "' (xor, moons, circles, spirals)");
  if (backend != Backend::gpu) throw std::invalid_argument("lesson 10 trains on GPUs: --backend gpu");
  if (!variant.empty() && variant != "data_parallel") {
    throw std::invalid_argument("lesson 10 trains with data_parallel (and the same on one GPU beside it)");
  }
  const int gpus = mg::visible_gpus();
  if (gpus < 1) throw std::invalid_argument("no GPU to train on");
  constexpr int kPerGpu = 128;
  const int steps = epochs > 0 ? epochs : 300;
  const Layout net{{2, 16, 1}};
  const mlp::Data data = mlp::make_dataset(*dataset, kPerGpu * gpus, 7);
  const std::vector<float> initial = mlp::initial_parameters(net, 7);
  constexpr float kRate = 2.0f;
  mg::DataParallel many(net, gpus, kPerGpu, nullptr), one(net, 1, kPerGpu * gpus, nullptr);
  for (mg::DataParallel* run : {&many, &one}) {
    run->set_parameters(initial);
    run->set_batch(data.x, data.y);
  }
  std::string out = fmt::format(
      "Lesson 10: {} ({} points) on 2x16x1, full batch, binary cross-entropy, lr {}: {} GPU(s) × {} examples "
      "against 1 GPU × {}\n\n{:>6} {:>14} {:>14} {:>12}\n",
      dataset_name, data.count, kRate, gpus, kPerGpu, kPerGpu * gpus, "step", "loss, 1 GPU",
      fmt::format("loss, {} GPUs", gpus), "difference");
  std::vector<float> first(initial.size()), other(initial.size()), single(initial.size());
  double largest_loss_gap = 0, largest_parameter_gap = 0;
  for (int step = 1; step <= steps; ++step) {
    many.step(kRate, mlp::Loss::bce);
    one.step(kRate, mlp::Loss::bce);
    // After every step: every GPU holds the same parameters, bit for bit.
    many.parameters(0, first);
    for (int g = 1; g < gpus; ++g) {
      many.parameters(g, other);
      if (std::memcmp(first.data(), other.data(), first.size() * sizeof(float)) != 0) {
        throw std::runtime_error(fmt::format("after step {} GPU {}'s parameters differ from GPU 0's", step, g));
      }
    }
    one.parameters(0, single);
    for (std::size_t i = 0; i < single.size(); ++i) {
      largest_parameter_gap = std::max(largest_parameter_gap, static_cast<double>(std::abs(single[i] - first[i])));
    }
    const float a = one.loss(), b = many.loss();
    largest_loss_gap = std::max(largest_loss_gap, static_cast<double>(std::abs(a - b)));
    if (step == 1 || step % std::max(1, steps / 10) == 0) {
      out += fmt::format("{:>6} {:>14.7f} {:>14.7f} {:>12.2e}\n", step, a, b, std::abs(a - b));
    }
  }
  out += fmt::format(
      "\nThe parameters were identical on all {} GPUs after each of the {} steps. Largest difference from the "
      "one-GPU run: loss {:.2e}, parameter {:.2e} (the GPUs sum the same terms in a different order).\n",
      gpus, steps, largest_loss_gap, largest_parameter_gap);
  return out;
}
#endif

// A problem on more GPUs than the machine has is skipped, with the count, before anything runs.
std::optional<std::string> needs_gpus(const Problem& p) {
#if GPULAB_HAVE_CUDA
  const int have = gpu::multi_gpu::visible_gpus();
#else
  const int have = 0;
#endif
  if (gpus_of(p) <= have) return std::nullopt;
  return fmt::format("asks for {} GPU{}; {} visible here", gpus_of(p), gpus_of(p) == 1 ? "" : "s", have);
}

Lesson make_lesson() {
  Lesson l;
  l.id = "10";
  l.name = "multi_gpu";
  l.title = "Several GPUs";
  l.summary = "Lesson 07's training step over several GPUs: data parallel with NCCL all-reduce, and model parallel";
  l.text_file = "docs/lessons/10-multi-gpu.md";
  l.sources = {"kernels/multi_gpu/multi_gpu.cpp", "kernels/multi_gpu", "kernels/mlp/mlp.cu"};
  l.size_help = "examples per GPU, 784 → 128 → 10 on every visible GPU (--shape for others)";
  l.default_n = 128;
  l.max_n = 1 << 16;
  l.sweep = {32, 128, 512, 2048, 8192};
  l.test_sizes = {1, 31, 128};
  l.test_problems = {parse_shape("2x16x1:1:1"),    parse_shape("2x16x1:64:2"),     parse_shape("7x17x3:31:3"),
                     parse_shape("784x128x10:32"), parse_shape("784x128x10:33:4"), parse_shape("5x9x2:8:2")};
  l.emulated_max_n = 0;
  l.problem = problem_of;
  l.parse_shape = parse_shape;
  l.shape_help = "INxHIDDENxOUT:BATCH[:GPUS] — BATCH examples per GPU on GPUS GPUs (default: every visible one)";
  l.counts = counts_of;
  l.footprint = footprint_of;
  l.make_instance = make_instance_of;
#if GPULAB_HAVE_CUDA
  l.train = train_report;
  const mlp::GemmFunction cublas = gpu::mlp::cublas_gemm;
#endif
  l.variants = {
      {"cpu", "Lesson 07's CPU step on the whole batch (every GPU's examples)", cpu("cpu", false)},
      {"cpu_shards", "The data-parallel algorithm on the CPU: each GPU's share alone, gradients averaged",
       cpu("cpu_shards", true)},
      {"one_gpu", "The whole batch on GPU 0 alone (lesson 07's layered step, cuBLAS GEMMs)",
       GPULAB_SPLIT("one_gpu", one_gpu, cublas, false)},
      {"data_parallel", "Every GPU a share, gradients averaged by NCCL all-reduce; the lesson's kernels, one by one",
       GPULAB_SPLIT("data_parallel", data, nullptr, false)},
      {"data_parallel_graph", "data_parallel with each GPU's part of the step captured once as a CUDA graph",
       GPULAB_SPLIT("data_parallel_graph", data, nullptr, true)},
      {"data_parallel_cublas_graph", "data_parallel_graph with cuBLAS's GEMMs: for the larger networks",
       GPULAB_SPLIT("data_parallel_cublas_graph", data, cublas, true)},
      {"model_parallel", "The layers split over the GPUs, activations and deltas copied between them (cuBLAS GEMMs)",
       GPULAB_SPLIT("model_parallel", model, cublas, false)},
  };
  for (Variant& v : l.variants) {
    if (v.name.starts_with("data_parallel") || v.name == "model_parallel") v.applies = needs_gpus;
  }
  return l;
}

}  // namespace

const Lesson& multi_gpu_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
