// Lesson 16, the capstone: the seed article's small CNN — two 3 × 3 convolutions with ReLU and
// max-pooling, two linear layers, softmax cross-entropy, Adam — one training step on each backend,
// in FP32 and in mixed precision (FP16 activations, dynamic loss scaling), checked against a
// float64 step; and trained on GPU Lab's own ten classes of shapes (--train).
#include "common/lesson.hpp"

#include <regex>

#include "16_cnn/cnn_live.hpp"
#include "16_cnn/cnn_step_runs.hpp"
#include "16_cnn/cnn_training.hpp"
#include "cnn/cnn_graph.hpp"
#include "common/targets.hpp"

namespace gpulab {

namespace {

using cnn::Layout;
using cnn::StepInstance;

Layout layout_of(const Problem& p) {
  Layout net;
  net.side = static_cast<int>(p.dim("side", net.side));
  net.c1 = static_cast<int>(p.dim("c1", net.c1));
  net.c2 = static_cast<int>(p.dim("c2", net.c2));
  net.hidden = static_cast<int>(p.dim("hidden", net.hidden));
  return net;
}
int batch_of(const Problem& p) { return static_cast<int>(p.dim("batch", p.n)); }

Problem problem_from(const Layout& net, int batch) {
  return {batch, {{"batch", batch}, {"side", net.side}, {"c1", net.c1}, {"c2", net.c2}, {"hidden", net.hidden}}};
}

// The seed's network, a batch of n.
Problem problem_of(std::int64_t n) { return problem_from(Layout{}, static_cast<int>(n)); }

// "32:16x32x128:32": the image side, the two convolutions' filters and the hidden width, then the batch.
Problem parse_shape(const std::string& text) {
  static const std::regex form(R"((\d{1,3}):(\d{1,4})x(\d{1,4})x(\d{1,4}):(\d{1,6}))");
  std::smatch m;
  if (!std::regex_match(text, m, form)) throw std::invalid_argument("not of the form SIDE:C1xC2xHIDDEN:BATCH");
  Layout net;
  net.side = std::stoi(m[1]);
  net.c1 = std::stoi(m[2]);
  net.c2 = std::stoi(m[3]);
  net.hidden = std::stoi(m[4]);
  cnn::check_layout(net);
  const int batch = std::stoi(m[5]);
  if (batch < 1 || batch > 65536) throw std::invalid_argument("the batch must be 1 to 65536");
  return problem_from(net, batch);
}

Counts counts_of(const Problem& p) {
  const Layout net = layout_of(p);
  const double batch = batch_of(p), params = static_cast<double>(net.parameters());
  const double images = 4 * batch * static_cast<double>(net.image_size());
  // Forward 2·MACs an image; the backward pass twice that (the gradients of the weights and of
  // the inputs); Adam ~10 operations a parameter. The least traffic: the images and labels in,
  // the parameters and both moments read and written, the gradients written and read.
  const double state = 4 * params * (2 + 4 + 2);
  return {6 * batch * net.macs() + 10 * params, images + 4 * batch + state, images + 4 * batch + 4 * params,
          4 * (2 * params + 1)};
}

Footprint footprint_of(const Problem& p) {
  const Layout net = layout_of(p);
  const int batch = batch_of(p);
  const double params = static_cast<double>(net.parameters()), images = batch * static_cast<double>(net.image_size());
  const double workspace = static_cast<double>(cnn::step_floats(net, batch) + cnn::step_ints(net, batch));
  // Host: the images (and a pinned copy), the parameters' copies, the float64 step's activations
  // (about the workspace, in doubles) and gradients. Device: parameters, moments, images, workspace.
  return {8 * images + 40 * params + 8 * workspace, 4 * (3 * params + images + workspace)};
}

std::unique_ptr<Instance> make_instance_of(const Problem& p, std::uint64_t seed) {
  return cnn::make_step_instance(layout_of(p), batch_of(p), seed);
}

// A step layer by layer on every device backend this build has (layered_step, mixed_step), or
// where it `needs` what only a GPU has, on the GPU alone.
std::vector<std::pair<Backend, RunFactory>> step_backends(const char* name, cnn::StepFunction function,
                                                          const cnn::StepBounds& bounds, const char* needs = nullptr) {
  const RunFactory make = factory<StepInstance>([=](const StepInstance& in, const RunOptions&) -> std::unique_ptr<Run> {
    const cnn::DeviceStep step = [function](auto&&... args) { function(args..., nullptr); };
    return std::make_unique<cnn::DeviceStepRun>(in, name, step, bounds);
  });
  return needs != nullptr ? gpu_only(make, needs) : on_devices(make);
}

// The step as a CUDA graph, on the GPU: each run captures its own (its buffers are its own).
// `needs`: what the emulator lacks for it.
std::vector<std::pair<Backend, RunFactory>> graph_backends(const char* name, cnn::StepFunction function,
                                                           const cnn::StepBounds& bounds,
                                                           const char* needs = "CUDA graphs") {
  return gpu_only(factory<StepInstance>([=](const StepInstance& in, const RunOptions&) -> std::unique_ptr<Run> {
                    std::shared_ptr<cnn::GraphStep> graph = cnn::graph_step(function);
                    const cnn::DeviceStep step = [graph](auto&&... args) { graph->run(args...); };
                    return std::make_unique<cnn::DeviceStepRun>(in, name, step, bounds);
                  }),
                  needs);
}

// The step as a CUDA graph on the GPU, and step by step on the emulator, which has no graphs but
// runs the step's kernels (the tensor cores' through its <mma.h>).
std::vector<std::pair<Backend, RunFactory>> graph_on_gpu(const char* name, cnn::StepFunction function,
                                                         const cnn::StepBounds& bounds) {
  auto backends = graph_backends(name, function, bounds);
  const auto emulated = step_backends(name, function, bounds);
  for (auto& [backend, factory] : backends) {
    if (backend != Backend::emulated) continue;
    for (const auto& [other, step] : emulated) {
      if (other == Backend::emulated) factory = step;
    }
  }
  return backends;
}

Lesson make_lesson() {
  Lesson l;
  l.title = "The capstone: a CNN";
  l.summary =
      "The seed's small CNN trained end to end — convolutions, pooling, linear layers, softmax cross-entropy and "
      "Adam, forward and backward — on the CPU and layer by layer on the GPU, in FP32 and in mixed precision, on the "
      "CUDA cores and the tensor cores";
  l.sources = {"kernels/cnn/cnn_layers.cu", "kernels/common/stored.cuh", "kernels/mlp/mlp_layered.cu",
               "lessons/16_cnn"};
  l.size_help = "batch size, for the seed's network (32 × 32 × 3 images → 16 → 32 → 2048 → 128 → 10)";
  l.default_n = 32;
  l.max_n = 65536;
  l.sweep = {8, 16, 32, 64, 128, 256, 512, 1024};
  l.parse_shape = parse_shape;
  l.shape_help = "SIDE:C1xC2xHIDDEN:BATCH, e.g. 32:16x32x128:256 (3 channels in, 10 classes out)";
  // The seed's network at batches of 1 and 3; a side no tile divides, single filters and units.
  l.test_problems = {problem_from(Layout{}, 1), problem_from(Layout{}, 3), problem_from(Layout{12, 3, 5, 7, 9}, 5),
                     problem_from(Layout{4, 3, 1, 1, 1}, 2)};
  l.problem = problem_of;
  l.counts = counts_of;
  l.footprint = footprint_of;
  l.make_instance = make_instance_of;
  l.variants = {
      {"cpu",
       "The float64 reference's loops in float: each layer forward and back, Adam; the images over the cores",
       {{Backend::cpu, factory<StepInstance>([](const StepInstance& in, const RunOptions&) -> std::unique_ptr<Run> {
           return std::make_unique<cnn::CpuStepRun>(in);
         })}}},
      {"layered",
       "One kernel per operation, a thread per output: conv + ReLU, pool, GEMM + bias, softmax, their backward "
       "passes, Adam (24 kernels: the sums over the batch in shares and slices)",
       step_backends("layered", cnn::layered_step, cnn::kFp32Bounds)},
      {"graph", "layered, captured once in a CUDA graph and replayed: one launch for the 24 kernels",
       graph_backends("graph", cnn::layered_step, cnn::kFp32Bounds)},
      {"implicit_gemm",
       "graph with its convolutions as implicit GEMMs: the im2col matrix gathered piece by piece into shared "
       "memory, each thread summing 2 × 4 outputs in registers, FP32 throughout (tensor_cores' kernels on the "
       "CUDA cores); emulated, without the graph",
       graph_on_gpu("implicit_gemm", cnn::implicit_gemm_step, cnn::kFp32Bounds)},
      {"mixed",
       "The same kernels on FP16 activations and an FP16 copy of the weights, every sum in float; the loss scaled "
       "and the step skipped where a gradient overflows (PyTorch's GradScaler)",
       step_backends("mixed", cnn::mixed_step, cnn::kMixedBounds)},
      {"mixed_graph", "mixed, captured in a CUDA graph",
       graph_backends("mixed_graph", cnn::mixed_step, cnn::kMixedBounds)},
      {"cudnn",
       "layered with NVIDIA's libraries' layers in place of ours: cuDNN's convolutions (forward, bias, ReLU and "
       "the three gradients) and cuBLAS's SGEMM for the linear layers, FP32 throughout; our pools, loss and Adam",
       step_backends("cudnn", cnn::library_step, cnn::kFp32Bounds, "cuDNN and cuBLAS")},
      {"tensor_cores",
       "mixed_graph with its convolutions on the tensor cores: each an implicit GEMM, the im2col matrix gathered "
       "piece by piece into shared memory, 16 × 16 × 16 FP16 products summed in FP32 (WMMA); emulated, without the "
       "graph",
       graph_on_gpu("tensor_cores", cnn::tensor_core_step, cnn::kMixedBounds)},
  };
  for (Variant& v : l.variants) {
    v.fixed_block = true;
    v.tensor_cores = v.name == "tensor_cores";  // no "% of the FP32 peak" for it
  }
  skip_in_every_variant(l, emulated_past(8));  // a step of 8 images is ~10^8 emulated thread-steps
  l.training = Training{.report = cnn::training_report, .live_images = cnn::live_training};
  return l;
}

}  // namespace

// Lesson 16: the capstone CNN, trained end to end in GPU Lab's own kernels.
const Lesson& cnn_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
