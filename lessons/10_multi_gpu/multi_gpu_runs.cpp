// Lesson 10's GPU runs: data and model parallelism over the GPUs of one machine, and the training
// report (GPU builds only).
#include <sched.h>

#include <cmath>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "10_multi_gpu/multi_gpu_runs.hpp"
#include "10_multi_gpu/process_orders.hpp"
#include "mlp/mlp_data.hpp"
#include "mlp/mlp_library.hpp"
#include "mlp/mlp_train.hpp"
#include "multi_gpu/multi_gpu.hpp"
#include "multi_gpu/nccl_library.hpp"
#include "multi_process/process_world.hpp"

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
      std::string text = fmt::format("{} GPUs, {} examples each; NCCL {}, the same parameters on every GPU",
                                     copies_.size(), in_.batch / static_cast<int>(copies_.size()), mg::nccl().version);
      // mpirun binds each of one or two processes to a single core: a host thread per GPU (and
      // NCCL's own threads) then share it, and the step takes many times longer.
      cpu_set_t cores;
      if (sched_getaffinity(0, sizeof cores, &cores) == 0 && CPU_COUNT(&cores) <= static_cast<int>(copies_.size())) {
        text += fmt::format(
            "; this process may run on {} core(s) only (mpirun binds processes to cores: "
            "mpirun --bind-to none), and its threads share them",
            CPU_COUNT(&cores));
      }
      return text;
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

namespace mp = multi_process;

// [snippet:process_join]
// A communicator of every process, one GPU each: rank 0 makes NCCL's id, MPI sends it to the
// others, and each process joins with its rank — how NCCL is bootstrapped on a cluster. Joining
// waits for every process, so it has a deadline instead of waiting for ever on one that died.
ncclComm_t join_every_process() {
  const mp::World& world = mp::world();
  ncclUniqueId id{};
  if (world.rank == 0) GPULAB_NCCL_CHECK(mg::nccl().get_unique_id(&id));
  mp::broadcast_values(std::span<ncclUniqueId>(&id, 1));
  mp::Deadline deadline("joining NCCL's communicator of every process", 120);
  ncclComm_t comm = nullptr;
  GPULAB_NCCL_CHECK(mg::nccl().comm_init_rank(&comm, world.size, id, world.rank));
  return comm;
}
// [/snippet]

// One process's part of a process-per-GPU step: the same for rank 0 and the others.
struct ProcessPart {
  Layout net;
  int batch = 0;
  std::vector<float> x, t, initial;  // every process's examples (rank 0's, broadcast), the first parameters
  std::unique_ptr<mg::DataParallel> step;

  // Collective: rank 0's `in` (null elsewhere) reaches every process, then every process joins.
  ProcessPart(const Orders& o, const StepInstance* in) : net{{o.sizes[0], o.sizes[1], o.sizes[2]}}, batch(o.batch) {
    const auto processes = static_cast<std::size_t>(mp::world().size);
    x.resize(processes * rows_of(net.inputs()));
    t.resize(processes * rows_of(net.outputs()));
    initial.resize(net.parameters());
    if (in != nullptr) x = in->x, t = in->t, initial = in->initial;
    mp::broadcast_values(std::span<float>(x));
    mp::broadcast_values(std::span<float>(t));
    mp::broadcast_values(std::span<float>(initial));
    step = std::make_unique<mg::DataParallel>(net, join_every_process(), mp::world().size, batch,
                                              o.cublas ? mlp::cublas_gemm : nullptr, o.graph != 0);
  }
  std::size_t rows_of(int width) const { return static_cast<std::size_t>(batch) * static_cast<std::size_t>(width); }
  void upload() {
    const auto k = static_cast<std::size_t>(mp::world().rank);
    step->set_parameters(initial);
    step->set_batch(std::span<const float>(x).subspan(k * rows_of(net.inputs()), rows_of(net.inputs())),
                    std::span<const float>(t).subspan(k * rows_of(net.outputs()), rows_of(net.outputs())));
    // Every process's copies done before any step starts: a process still copying when rank 0
    // starts the step would hold up the all-reduce, and rank 0's clock would count its copy.
    mp::wait_for_every_process();
  }
  // Every process's parameters after the step, compared by checksum: true where all are the same.
  bool download(std::vector<float>& params, float& loss) {
    params.resize(initial.size());
    step->parameters(0, params);
    loss = step->loss();
    return mp::same_everywhere(mp::checksum(std::as_bytes(std::span<const float>(params))));
  }
};

// Rank 0's side: the harness's phases, each sent to every other process first.
class ProcessRun : public Run {
 public:
  ProcessRun(const MultiGpuInstance& in, std::string name, mlp::GemmFunction gemm, bool graph)
      : in_(*in.step), name_(std::move(name)) {
    orders_.sizes[0] = in_.net.sizes[0];
    orders_.sizes[1] = in_.net.sizes[1];
    orders_.sizes[2] = in_.net.sizes[2];
    orders_.batch = in_.batch / in.gpus;
    orders_.cublas = gemm != nullptr ? 1 : 0;
    orders_.graph = graph ? 1 : 0;
    orders_.lr = mlp::kLearningRate;
    orders_.loss = static_cast<std::int32_t>(mlp::kLoss);
    tell(Order::create);
    part_ = std::make_unique<ProcessPart>(orders_, &in_);
  }
  ~ProcessRun() override {
    try {
      tell(Order::destroy);
    } catch (...) {  // a destructor: the job ends with MPI's own message if the others are gone
    }
  }
  void poison() override { gpulab::poison(params_); }
  void upload() override {
    tell(Order::upload);
    part_->upload();
  }
  void compute() override {
    tell(Order::step);
    part_->step->step(mlp::kLearningRate, mlp::kLoss);
  }
  void download() override {
    tell(Order::download);
    agree_ = part_->download(params_, loss_);
  }
  CheckResult check() const override {
    const std::string what = name_of(name_, Backend::gpu);
    if (!agree_) {
      CheckResult r;
      r.passed = false;
      r.mismatches = 1;
      r.checked = params_.size();
      r.message = what +
                  ": the processes' parameters differ after the step (their checksums were all-reduced): "
                  "they no longer train the same network";
      return r;
    }
    return mlp::check_step(params_, loss_, in_, what);
  }
  std::string note() const override {
    return fmt::format(
        "{} processes (mpirun), one GPU each, {} examples each; NCCL {} bootstrapped over MPI, the same "
        "parameters in every process",
        mp::world().size, orders_.batch, mg::nccl().version);
  }

 private:
  void tell(Order order) {
    orders_.order = order;
    send(orders_);
  }
  const StepInstance& in_;
  std::string name_;
  Orders orders_;
  std::unique_ptr<ProcessPart> part_;
  std::vector<float> params_;
  float loss_ = 0;
  bool agree_ = false;
};

// The GPU of this process's local rank, made its only one before CUDA starts (as a cluster's
// launcher does with one GPU per process): within the GPUs CUDA_VISIBLE_DEVICES already names,
// where it names some.
void take_own_gpu() {
  const int local = mp::world().local_rank;
  std::string gpu = std::to_string(local);
  if (const char* listed = std::getenv("CUDA_VISIBLE_DEVICES"); listed != nullptr && *listed != '\0') {
    std::vector<std::string> names;
    std::string name;
    for (const char* c = listed;; ++c) {
      if (*c == ',' || *c == '\0') {
        names.push_back(name);
        name.clear();
        if (*c == '\0') break;
      } else {
        name += *c;
      }
    }
    if (local >= static_cast<int>(names.size())) {
      mp::abort_job(fmt::format("local rank {} has no GPU: CUDA_VISIBLE_DEVICES names {}", local, names.size()));
    }
    gpu = names[static_cast<std::size_t>(local)];
  }
  setenv("CUDA_VISIBLE_DEVICES", gpu.c_str(), 1);
}

}  // namespace

std::unique_ptr<Run> process_run(const MultiGpuInstance& in, const std::string& name, mlp::GemmFunction gemm,
                                 bool graph) {
  if (!mp::started_by_mpirun()) {
    throw NotApplicable("a process per GPU: start it with mpirun -np N lesson10_multi_gpu …");
  }
  if (in.gpus != mp::world().size) {
    throw NotApplicable(fmt::format("asks for {} GPUs; this job has {} process(es), one GPU each (mpirun -np {})",
                                    in.gpus, mp::world().size, in.gpus));
  }
  try {
    mg::nccl();
  } catch (const mg::NcclUnavailable& e) {
    throw NotApplicable(e.what());
  }
  return std::make_unique<ProcessRun>(in, name, gemm, graph);
}

int follow_rank0() {
  take_own_gpu();
  std::unique_ptr<ProcessPart> part;
  std::vector<float> params;
  float loss = 0;
  try {
    for (;;) {
      const Orders o = receive();
      switch (o.order) {
        case Order::stop:
          return 0;
        case Order::create:
          part.reset();
          part = std::make_unique<ProcessPart>(o, nullptr);
          break;
        case Order::upload:
          part->upload();
          break;
        case Order::step:
          part->step->step(o.lr, static_cast<mlp::Loss>(o.loss));
          break;
        case Order::download:
          part->download(params, loss);
          break;
        case Order::destroy:
          part.reset();
          break;
      }
    }
  } catch (const std::exception& e) {
    mp::abort_job(e.what());
  }
}

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
