// Lesson 07, a tiny network: one training step (forward, loss, backward, SGD update) of a
// two-layer MLP with sigmoid units, on each backend, checked against a float64 step.
#include "common/lesson.hpp"

#include "07_tiny_network/device_steps.hpp"
#include "07_tiny_network/training.hpp"
#include "problems/mlp_step/step_check.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <regex>

#include <fmt/format.h>

#include "common/random.hpp"
#include "common/targets.hpp"
#include "mlp/mlp.hpp"
#include "mlp/mlp_cpu.hpp"
#include "mlp/mlp_train.hpp"

namespace gpulab {

namespace {

using mlp::Layout;
using mlp::Loss;
using Span = std::span<const float>;

using mlp::batch_of;
using mlp::check_step;
using mlp::kLearningRate;
using mlp::kLoss;
using mlp::layout_of;
using mlp::StepInstance;
constexpr int kFusedThreads = 512;

std::string name_of(const std::string& variant, Backend backend) {
  return "tiny_network " + variant + " (" + std::string(to_string(backend)) + ")";
}

class CpuStepRun : public Run {
 public:
  explicit CpuStepRun(const StepInstance& in) : in_(in), params_(in.initial.size()) {}
  void poison() override { gpulab::poison(params_); }
  void upload() override { std::copy(in_.initial.begin(), in_.initial.end(), params_.begin()); }
  void compute() override { loss_ = mlp::cpu_step(in_.net, params_, in_.x, in_.t, in_.batch, kLearningRate, kLoss); }
  CheckResult check() const override { return check_step(params_, loss_, in_, name_of("cpu", Backend::cpu)); }

 private:
  const StepInstance& in_;
  std::vector<float> params_;
  float loss_ = 0;
};

// One step on a device: the parameters are uploaded fresh before each step (the harness times
// that as the copy in), the step is the timed work, parameters and loss come back.
using mlp::DeviceStep;

class DeviceStepRun : public Run {
 public:
  DeviceStepRun(const StepInstance& in, std::string name, DeviceStep step, std::size_t workspace, int threads)
      : in_(in),
        backend_(active_device()),
        name_(std::move(name)),
        step_(std::move(step)),
        threads_(threads),
        host_params_(in.initial.size(), "params (host)"),
        host_x_(in.x.size(), "x (host)"),
        host_t_(in.t.size(), "t (host)"),
        host_loss_(1, "loss (host)"),
        params_(in.initial.size(), "params"),
        x_(in.x.size(), "x"),
        t_(in.t.size(), "t"),
        loss_(1, "loss"),
        workspace_(workspace, "workspace") {
    std::copy(in.x.begin(), in.x.end(), host_x_.data());
    std::copy(in.t.begin(), in.t.end(), host_t_.data());
  }
  void poison() override {
    params_.fill_bytes(kPoisonByte);
    gpulab::poison(host_params_.span());
    gpulab::poison(host_loss_.span());
  }
  void upload() override {
    std::copy(in_.initial.begin(), in_.initial.end(), host_params_.data());
    params_.copy_from(host_params_.span());
    x_.copy_from(host_x_.span());
    t_.copy_from(host_t_.span());
  }
  void compute() override {
    step_(in_.net, params_.span(), x_.span(), t_.span(), in_.batch, workspace_.span(), loss_.span());
  }
  void download() override {
    params_.copy_to(host_params_.span());
    loss_.copy_to(host_loss_.span());
  }
  CheckResult check() const override {
    return check_step(host_params_.span(), host_loss_.data()[0], in_, name_of(name_, backend_));
  }
  int block() const override { return threads_; }

 private:
  const StepInstance& in_;
  Backend backend_;
  std::string name_;
  DeviceStep step_;
  int threads_;
  HostBuffer<float> host_params_, host_x_, host_t_, host_loss_;
  DeviceBuffer<float> params_, x_, t_, loss_, workspace_;
};

// `make_step` gives each run its own step (a graph's holds the captured graph).
RunFactory device_run(const std::string& name, std::function<DeviceStep()> make_step, bool needs_workspace,
                      int threads) {
  return factory<StepInstance>([=](const StepInstance& in, const RunOptions&) -> std::unique_ptr<Run> {
    const std::size_t workspace = needs_workspace ? mlp::step_workspace(in.net, in.batch) : 0;
    return std::make_unique<DeviceStepRun>(in, name, make_step(), workspace, threads);
  });
}

// A variant on every device backend this build has, or, where it needs a library the emulator
// does not model (`needs`: cuBLAS, CUDA graphs), on the GPU alone.
std::vector<std::pair<Backend, RunFactory>> backends_of(const std::string& name, int threads,
                                                        const std::string& needs = "") {
  const bool workspace = mlp::needs_workspace(name);
  const RunFactory make = device_run(
      name, [name] { return mlp::device_step(active_device(), name, kLearningRate, kLoss, kFusedThreads); }, workspace,
      threads);
  return needs.empty() ? on_devices(make) : gpu_only(make, needs);
}

// ---- the lesson

Problem problem_from(const Layout& net, int batch) {
  return {batch, {{"in", net.sizes[0]}, {"hidden", net.sizes[1]}, {"out", net.sizes[2]}, {"batch", batch}}};
}

// The default family: the 2 → 16 → 1 network, a batch of n.
Problem problem_of(std::int64_t n) { return problem_from(Layout{{2, 16, 1}}, static_cast<int>(n)); }

// "784x128x10:128": input, hidden and output widths, then the batch.
Problem parse_shape(const std::string& text) {
  static const std::regex form(R"((\d{1,5})x(\d{1,5})x(\d{1,5}):(\d{1,7}))");
  std::smatch m;
  if (!std::regex_match(text, m, form)) throw std::invalid_argument("not of the form INxHIDDENxOUT:BATCH");
  const Layout net{{std::stoi(m[1]), std::stoi(m[2]), std::stoi(m[3])}};
  mlp::check_layout(net);
  const int batch = std::stoi(m[4]);
  if (batch < 1 || batch > (1 << 20)) throw std::invalid_argument("the batch must be 1 to 1048576");
  return problem_from(net, batch);
}

Counts counts_of(const Problem& p) {
  const Layout net = layout_of(p);
  const double batch = batch_of(p), params = static_cast<double>(net.parameters());
  // Forward 2·B·MACs, backward twice that (dW and the previous layer's delta); the least traffic:
  // the parameters in and out, the batch and its targets in.
  const double io = 4 * batch * (net.inputs() + net.outputs());
  return {6 * batch * net.macs(), 8 * params + io, 4 * params + io, 4 * params + 4};
}

Footprint footprint_of(const Problem& p) {
  const Layout net = layout_of(p);
  const double batch = batch_of(p), params = static_cast<double>(net.parameters());
  const double workspace = static_cast<double>(mlp::step_workspace(net, static_cast<int>(batch)));
  const double io = batch * (net.inputs() + net.outputs());
  // Host: x, t, their pinned copies, the parameters (several copies), the float64 reference's
  // activations and gradients. Device: parameters, x, t, the workspace.
  return {8 * io + 40 * params + 8 * batch * (net.inputs() + net.sizes[1] + net.outputs()) * 3,
          4 * (params + io + workspace)};
}

std::unique_ptr<Instance> make_instance_of(const Problem& p, std::uint64_t seed) {
  return mlp::make_step_instance(layout_of(p), batch_of(p), seed);
}

std::optional<std::string> fused_applies(const Problem& p) {
  if (mlp::fused_fits(layout_of(p), batch_of(p))) return std::nullopt;
  return "the fused step keeps the parameters and the batch's activations in one block's 48 KB of shared memory; "
         "this network and batch do not fit";
}

std::optional<std::string> registers_apply(const Problem& p) {
  if (mlp::fused_registers_fits(layout_of(p))) return std::nullopt;
  return "the register kernel is compiled for the 2x8x1 and 2x16x1 networks only";
}

Lesson make_lesson() {
  Lesson l;
  l.title = "A tiny network";
  l.summary =
      "One training step of y = σ(Wx + b) layers: CPU, layer by layer on the GPU (own GEMMs or cuBLAS, launched one "
      "by one or as a CUDA graph), and fused into one kernel";
  l.sources = {"kernels/mlp/mlp_layered.cu"};
  l.size_help = "batch size, for the 2 → 16 → 1 network";
  l.default_n = 64;
  l.max_n = 1 << 20;
  l.sweep = {16, 64, 256, 1024, 4096, 16384, 65536};
  l.parse_shape = parse_shape;
  l.shape_help = "INxHIDDENxOUT:BATCH, e.g. 784x128x10:128";
  l.test_problems = {problem_from(Layout{{2, 16, 1}}, 64), problem_from(Layout{{2, 16, 1}}, 1),
                     problem_from(Layout{{7, 17, 3}}, 31), problem_from(Layout{{33, 65, 2}}, 100),
                     problem_from(Layout{{1, 1, 1}}, 5)};
  l.problem = problem_of;
  l.counts = counts_of;
  l.footprint = footprint_of;
  l.make_instance = make_instance_of;

  l.variants = {
      {"cpu",
       "The loops of forward, backward and the update, one example or unit per core",
       {{Backend::cpu, factory<StepInstance>([](const StepInstance& in, const RunOptions&) -> std::unique_ptr<Run> {
           return std::make_unique<CpuStepRun>(in);
         })}}},
      {"layered",
       "One kernel per operation: GEMMs, bias + sigmoid, loss, dW, db, deltas, update (13 launches for two layers)",
       backends_of("layered", 256)},
      {"cublas", "layered, with cuBLAS's GEMMs (FP32) in place of the lesson's 16 × 16 tiled kernel",
       backends_of("cublas", 256, "cuBLAS")},
      {"graph", "layered, captured once in a CUDA graph and replayed: one launch for the 13 kernels",
       backends_of("graph", 256, "CUDA graphs")},
      {"cublas_graph", "cublas, captured in a CUDA graph: library GEMMs without the launch gaps",
       backends_of("cublas_graph", 256, "cuBLAS and CUDA graphs")},
      {"fused", "The whole step in one kernel and one block, everything in shared memory",
       backends_of("fused", kFusedThreads)},
      {"fused_registers",
       "fused, with the widths known when compiling: an example per thread, its gradient in registers, one barrier",
       backends_of("fused_registers", 64)},
  };
  for (Variant& v : l.variants) v.fixed_block = true;
  for (Variant& v : l.variants) {
    if (v.name == "fused") v.skips.push_back(unless_applies(fused_applies));
    if (v.name == "fused_registers") v.skips.push_back(unless_applies(registers_apply));
  }
  skip_in_every_variant(l, emulated_past(16384));
  l.training = Training{.report = mlp::training_report, .live_network = true};
  return l;
}

}  // namespace

// Lesson 07: one training step of a small MLP, y = σ(Wx + b) per layer, MSE and SGD: on the CPU,
// layer by layer on the GPU, and fused into a single kernel.
const Lesson& tiny_network_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
