// Lesson 10's GPU runs: data and model parallelism over the GPUs of one machine, and the training
// report (GPU builds only).
#include <cmath>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "10_multi_gpu/multi_gpu_runs.hpp"
#include "mlp/mlp_data.hpp"
#include "mlp/mlp_train.hpp"
#include "multi_gpu/multi_gpu.hpp"
#include "multi_gpu/nccl_library.hpp"

namespace gpulab::multi_gpu_runs {

namespace {

namespace mg = gpu::multi_gpu;
using mlp::Layout;
using mlp::StepInstance;

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

}  // namespace

int visible_gpus() { return mg::visible_gpus(); }

std::unique_ptr<Run> gpu_run(const MultiGpuInstance& in, const std::string& name, Split split, mlp::GemmFunction gemm,
                             bool graph) {
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
}

Timeline step_timeline(const MultiGpuInstance& in, const std::string& name, mlp::GemmFunction gemm, bool graph) {
  const StepInstance& step = *in.step;
  const int per_gpu = step.batch / in.gpus;
  mg::DataParallel run(step.net, in.gpus, per_gpu, gemm, graph);
  run.set_parameters(step.initial);
  run.set_batch(step.x, step.t);
  std::vector<mg::StepSpan> spans;
  for (int i = 0; i < 3; ++i) spans = run.record_step(mlp::kLearningRate, mlp::kLoss);  // the first two warm up
  Timeline t;
  t.variant = name;
  t.n = per_gpu;
  t.gpus = t.streams = in.gpus;
  t.chunks = step.net.layers();
  for (const mg::StepSpan& s : spans) t.spans.push_back({s.gpu, s.layer, s.phase, s.start_ms, s.end_ms});
  return t;
}

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

}  // namespace gpulab::multi_gpu_runs
