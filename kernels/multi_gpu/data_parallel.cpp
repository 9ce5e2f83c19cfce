// Lesson 10, data parallelism: every GPU holds all the parameters and takes its share of each
// batch; NCCL averages the gradients, so every GPU makes the same update (multi_gpu.hpp).
#include "multi_gpu/multi_gpu.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/cuda_handles.hpp"
#include "matmul/matmul_cublas.hpp"
#include "multi_gpu/gpu_threads.hpp"
#include "multi_gpu/multi_gpu_devices.hpp"
#include "multi_gpu/nccl_library.hpp"
#include "multi_gpu/step_clock.hpp"

namespace gpulab::gpu::multi_gpu {

// Where a stamped step (record_step) writes its clock readings on each GPU: the start, the loss
// (the end of the forward pass), each layer's gradients, each layer's average and update, the
// end; then the readings that set the GPUs' clocks against each other (record_step).
struct Slots {
  static constexpr int kMeetings = 9;
  int layers;
  int start() const { return 0; }
  int forward() const { return 1; }
  int gradients(int l) const { return 2 + l; }
  int averaged(int l) const { return 2 + layers + l; }
  int end() const { return 2 + 2 * layers; }
  int met(int i) const { return 3 + 2 * layers + i; }
  int issued() const { return 3 + 2 * layers + kMeetings; }  // GPU 0's default stream, before the step
  int joined() const { return issued() + 1; }                // and after it: where the events are
  int count() const { return joined() + 1; }
};

struct DataParallel::Replicas {
  Layout net;
  int batch = 0;
  int ranks = 1;  // the GPUs averaging: this process's (a thread each), or the processes' (one each)
  GemmFunction gemm = nullptr;
  std::vector<std::unique_ptr<GpuStream>> streams;       // each GPU's step
  std::vector<std::unique_ptr<GpuStream>> nccl_streams;  // each GPU's averaging, beside its step (several GPUs)
  std::vector<std::vector<Event>> ready;                 // [gpu][layer]: that layer's gradients are computed
  std::unique_ptr<Event> started;                        // on GPU 0's default stream: where every GPU's step starts
  std::vector<Buffer> params, x, t, workspace, loss;
  std::vector<gpu::DeviceBuffer<std::uint64_t>> stamps;  // [gpu]: Slots, for record_step
  std::vector<ncclComm_t> comms;                         // one per GPU, from one ncclCommInitAll (empty with one GPU)
  std::unique_ptr<GpuThreads> threads;
  bool use_graph = false;
  std::vector<GraphExec> graphs;  // one per GPU, for the step with these:
  float graph_lr = 0;
  Loss graph_loss = Loss::mse;
  bool graph_stamped = false;

  ~Replicas() {
    threads.reset();
    graphs.clear();
    CurrentDevice on(0, true);  // NCCL switches devices as it tears down
    for (ncclComm_t c : comms) nccl().comm_destroy(c);
  }
};

DataParallel::DataParallel(const Layout& net, int gpus, int batch, GemmFunction gemm, bool graph)
    : r_(std::make_unique<Replicas>()) {
  set_up(net, gpus, gpus, batch, gemm, graph);
  if (gpus > 1) {
    std::vector<int> devices(static_cast<std::size_t>(gpus));
    for (int g = 0; g < gpus; ++g) devices[static_cast<std::size_t>(g)] = g;
    r_->comms.resize(devices.size());
    CurrentDevice on(0);  // ncclCommInitAll visits every GPU; the guard puts the caller's device back
    GPULAB_NCCL_CHECK(nccl().comm_init_all(r_->comms.data(), gpus, devices.data()));
  }
}

DataParallel::DataParallel(const Layout& net, ncclComm_t comm, int ranks, int batch, GemmFunction gemm, bool graph)
    : r_(std::make_unique<Replicas>()) {
  r_->comms.push_back(comm);  // owned from here, whatever set_up throws
  set_up(net, 1, ranks, batch, gemm, graph);
}

void DataParallel::set_up(const Layout& net, int gpus, int ranks, int batch, GemmFunction gemm, bool graph) {
  gpulab::mlp::check_layout(net);
  check_gpus(gpus);
  r_->net = net;
  r_->batch = batch;
  r_->ranks = ranks;
  r_->gemm = gemm;
  r_->use_graph = graph;
  r_->started = made_on(0, [] { return std::make_unique<Event>(false); });
  for (int g = 0; g < gpus; ++g) {
    CurrentDevice on(g);
    r_->streams.push_back(std::make_unique<GpuStream>(g));
    r_->params.emplace_back(net.parameters(), "params");
    r_->x.emplace_back(rows(batch, net.inputs()), "x (this GPU's share)");
    r_->t.emplace_back(rows(batch, net.outputs()), "t (this GPU's share)");
    r_->workspace.emplace_back(mlp::step_workspace(net, batch), "workspace");
    r_->loss.emplace_back(1, "loss");
    r_->stamps.emplace_back(static_cast<std::size_t>(Slots{net.layers()}.count()), "stamps");
    if (ranks == 1) continue;
    r_->nccl_streams.push_back(std::make_unique<GpuStream>(g));
    r_->ready.emplace_back();
    for (int l = 0; l < net.layers(); ++l) r_->ready.back().emplace_back(false);
  }
  r_->threads = std::make_unique<GpuThreads>(gpus);
}

DataParallel::~DataParallel() = default;

int DataParallel::gpus() const { return static_cast<int>(r_->streams.size()); }

// The copies too are made by each GPU's thread, at once: a GPU's copy does not wait for the
// others', and the threads are awake for the step that follows.
void DataParallel::set_parameters(std::span<const float> params) {
  r_->threads->run([&](int g) {
    CurrentDevice on(g);
    r_->params[static_cast<std::size_t>(g)].copy_from(params);
  });
}

void DataParallel::set_batch(std::span<const float> x, std::span<const float> t) {
  const std::size_t xs = rows(r_->batch, r_->net.inputs()), ts = rows(r_->batch, r_->net.outputs());
  if (x.size() != xs * static_cast<std::size_t>(gpus()) || t.size() != ts * static_cast<std::size_t>(gpus())) {
    throw std::invalid_argument("data parallel: x and t must hold gpus × batch examples");
  }
  r_->threads->run([&](int g) {
    CurrentDevice on(g);
    const auto k = static_cast<std::size_t>(g);
    r_->x[k].copy_from(x.subspan(k * xs, xs));
    r_->t[k].copy_from(t.subspan(k * ts, ts));
  });
}

// [snippet:data_parallel_step]
// GPU g's part of the step, queued by GPU g's own host thread: lesson 07's layered step on its
// share of the batch, stopping before the update. As soon as a layer's gradients are queued
// (backward goes from the last layer down), a second stream waits for them and NCCL replaces
// them by their average over the GPUs — each thread makes its own GPU's call, and NCCL pairs the
// calls up — then applies the update to that layer, while the first stream goes on with the
// layers below. The averaged gradient of equal shares is the gradient of the whole batch, so the
// step is the one-GPU step on gpus × batch examples, and every GPU makes the same update.
void DataParallel::queue(int g, float lr, Loss loss, bool stamped) {
  const auto k = static_cast<std::size_t>(g);
  const Layout& net = r_->net;
  const Slots slot{net.layers()};
  const bool averaging = r_->ranks > 1;
  const cudaStream_t step = r_->streams[k]->stream.get(),
                     average = averaging ? r_->nccl_streams[k]->stream.get() : nullptr;
  std::uint64_t* stamps = r_->stamps[k].data();
  auto mark = [&](int at, cudaStream_t stream) {  // record_step's clock readings
    if (stamped) stamp(stamps + at, stream);
  };
  float* params = r_->params[k].data();
  float* grads = mlp::step_gradients(net, r_->batch, r_->workspace[k].span()).data();
  float* loss_sum = r_->loss[k].data();

  StepOptions options{r_->gemm, step, !averaging};
  options.loss_queued = [&] { mark(slot.forward(), step); };
  options.gradients_queued = [&](int l) {
    mark(slot.gradients(l), step);
    if (!averaging) return;
    const auto layer = static_cast<std::size_t>(l);
    GPULAB_CUDA_CHECK(cudaEventRecord(r_->ready[k][layer].get(), step));
    GPULAB_CUDA_CHECK(cudaStreamWaitEvent(average, r_->ready[k][layer].get()));
    const std::size_t first = net.weight_offset(l), count = net.weight_offset(l + 1) - first;
    const Nccl& lib = nccl();
    GPULAB_NCCL_CHECK(lib.group_start());  // the loss rides with the last layer: one launch
    GPULAB_NCCL_CHECK(lib.all_reduce(grads + first, grads + first, count, ncclFloat, ncclAvg, r_->comms[k], average));
    if (l == net.layers() - 1) {
      GPULAB_NCCL_CHECK(lib.all_reduce(loss_sum, loss_sum, 1, ncclFloat, ncclAvg, r_->comms[k], average));
    }
    GPULAB_NCCL_CHECK(lib.group_end());
    mlp::sgd(params + first, grads + first, count, lr, {nullptr, average});
    mark(slot.averaged(l), average);
  };
  mark(slot.start(), step);
  mlp::layered_step(net, r_->params[k].span(), r_->x[k].span(), r_->t[k].span(), r_->batch, lr, loss,
                    r_->workspace[k].span(), r_->loss[k].span(), options);
  if (averaging) {  // the step ends when the last update has
    GPULAB_CUDA_CHECK(cudaEventRecord(r_->nccl_streams[k]->done.get(), average));
    GPULAB_CUDA_CHECK(cudaStreamWaitEvent(step, r_->nccl_streams[k]->done.get()));
  }
  mark(slot.end(), step);
}
// [/snippet]

// [snippet:data_parallel_graph]
// Each GPU's thread captures its own GPU's streams, NCCL's calls included, as one graph; the
// graphs hold the buffers' addresses and the learning rate.
void DataParallel::capture(float lr, Loss loss, bool stamped) {
  r_->graphs.clear();  // each destroyed on its own GPU
  r_->graphs.resize(static_cast<std::size_t>(gpus()));
  r_->threads->run([&](int g) {
    CurrentDevice on(g);
    const auto k = static_cast<std::size_t>(g);
    // A cuBLAS handle made inside the capture would fail (it allocates): make it before.
    if (r_->gemm != nullptr) gpulab::matmul::cublas_ready();
    // (Relaxed: every GPU's thread captures at once.)
    r_->graphs[k] = capture_graph(
        r_->streams[k]->stream.get(), [&] { queue(g, lr, loss, stamped); }, cudaStreamCaptureModeRelaxed);
  });
  r_->graph_lr = lr;
  r_->graph_loss = loss;
  r_->graph_stamped = stamped;
}
// [/snippet]

// Every GPU's step starts after what GPU 0's default stream holds (fork_from_gpu0); every GPU's
// thread queues (or launches the graph of) its part at once; then GPU 0's default stream waits
// for every GPU (join_on_gpu0).
void DataParallel::run_step(float lr, Loss loss, bool stamped) {
  if (r_->use_graph &&
      (r_->graphs.empty() || r_->graph_lr != lr || r_->graph_loss != loss || r_->graph_stamped != stamped)) {
    capture(lr, loss, stamped);
  }
  fork_from_gpu0(*r_->started, r_->streams);
  r_->threads->run([&](int g) {
    CurrentDevice on(g);
    if (r_->use_graph) {
      const auto k = static_cast<std::size_t>(g);
      r_->graphs[k].launch(r_->streams[k]->stream.get());
    } else {
      queue(g, lr, loss, stamped);
    }
  });
  join_on_gpu0(r_->streams);
}

void DataParallel::step(float lr, Loss loss) { run_step(lr, loss, false); }

// The GPUs' clocks (step_clock.hpp) are not set to one another: on a 4 × H200 machine they
// were hundreds of microseconds apart. So after the step the GPUs meet a few times — an
// all-reduce of one number, which ends on every GPU within a few microseconds of the others,
// since none can finish before all have arrived — each reading its clock as it leaves, and each
// GPU's readings are moved by its median distance from GPU 0's.
std::vector<StepSpan> DataParallel::record_step(float lr, Loss loss) {
  const Slots slot{r_->net.layers()};
  {
    CurrentDevice on(0);  // where a program's events around step() would be
    stamp(r_->stamps[0].data() + slot.issued(), cudaStreamLegacy);
    run_step(lr, loss, true);
    stamp(r_->stamps[0].data() + slot.joined(), cudaStreamLegacy);
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  }
  r_->threads->run([&](int g) {
    if (gpus() == 1) return;
    CurrentDevice on(g);
    const auto k = static_cast<std::size_t>(g);
    const cudaStream_t stream = r_->streams[k]->stream.get();
    std::uint64_t* stamps = r_->stamps[k].data();
    for (int i = 0; i < Slots::kMeetings; ++i) {  // the value is not used: the meeting is
      GPULAB_NCCL_CHECK(
          nccl().all_reduce(stamps + slot.met(i), stamps + slot.met(i), 1, ncclUint64, ncclMax, r_->comms[k], stream));
      stamp(stamps + slot.met(i), stream);
    }
  });
  std::vector<std::vector<std::uint64_t>> at(static_cast<std::size_t>(gpus()),
                                             std::vector<std::uint64_t>(static_cast<std::size_t>(slot.count())));
  for (int g = 0; g < gpus(); ++g) {
    CurrentDevice on(g);
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(r_->streams[static_cast<std::size_t>(g)]->stream.get()));
    r_->stamps[static_cast<std::size_t>(g)].copy_to(at[static_cast<std::size_t>(g)]);
  }
  // GPU g's clock minus GPU 0's, in nanoseconds.
  std::vector<double> ahead(static_cast<std::size_t>(gpus()), 0.0);
  for (int g = 1; g < gpus(); ++g) {
    std::vector<double> gaps;
    for (int i = 0; i < Slots::kMeetings; ++i) {
      const auto m = static_cast<std::size_t>(slot.met(i));
      gaps.push_back(static_cast<double>(at[static_cast<std::size_t>(g)][m]) - static_cast<double>(at[0][m]));
    }
    std::nth_element(gaps.begin(), gaps.begin() + Slots::kMeetings / 2, gaps.end());
    ahead[static_cast<std::size_t>(g)] = gaps[Slots::kMeetings / 2];
  }
  auto on_gpu0_clock = [&](int g, int i) {
    return static_cast<double>(at[static_cast<std::size_t>(g)][static_cast<std::size_t>(i)]) -
           ahead[static_cast<std::size_t>(g)];
  };
  double zero = on_gpu0_clock(0, slot.start());
  for (int g = 1; g < gpus(); ++g) zero = std::min(zero, on_gpu0_clock(g, slot.start()));
  double last_end = 0;
  for (int g = 0; g < gpus(); ++g) last_end = std::max(last_end, on_gpu0_clock(g, slot.end()));
  // GPU 0's default stream: from its reading before step() to the first GPU's start (launching),
  // and from the last GPU's end to its reading after step() (waiting for every GPU).
  std::vector<StepSpan> spans{
      {0, "launch", -1, (on_gpu0_clock(0, slot.issued()) - zero) * 1e-6, 0.0},
      {0, "join", -1, (last_end - zero) * 1e-6, (on_gpu0_clock(0, slot.joined()) - zero) * 1e-6}};
  for (int g = 0; g < gpus(); ++g) {
    auto ms = [&](int i) { return (on_gpu0_clock(g, i) - zero) * 1e-6; };
    const int last = r_->net.layers() - 1;
    spans.push_back({g, "forward", -1, ms(slot.start()), ms(slot.forward())});
    for (int l = last; l >= 0; --l) {
      spans.push_back(
          {g, "backward", l, ms(l == last ? slot.forward() : slot.gradients(l + 1)), ms(slot.gradients(l))});
      if (gpus() == 1) continue;
      // NCCL's stream starts a layer once its gradients are ready and the layer above is done.
      const double from = l == last ? ms(slot.gradients(l)) : std::max(ms(slot.gradients(l)), ms(slot.averaged(l + 1)));
      spans.push_back({g, "all-reduce", l, from, ms(slot.averaged(l))});
    }
    if (gpus() == 1) spans.push_back({g, "update", -1, ms(slot.gradients(0)), ms(slot.end())});
  }
  return spans;
}

void DataParallel::parameters(int gpu, std::span<float> out) const {
  CurrentDevice on(gpu);
  GPULAB_CUDA_CHECK(cudaStreamSynchronize(r_->streams[static_cast<std::size_t>(gpu)]->stream.get()));
  r_->params[static_cast<std::size_t>(gpu)].copy_to(out);
}

float DataParallel::loss() const {
  CurrentDevice on(0);
  GPULAB_CUDA_CHECK(cudaStreamSynchronize(r_->streams.front()->stream.get()));
  float value = 0;
  r_->loss.front().copy_to({&value, 1});
  return value;
}

}  // namespace gpulab::gpu::multi_gpu
