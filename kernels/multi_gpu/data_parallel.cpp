// Lesson 10, data parallelism: every GPU holds all the parameters and takes its share of each
// batch; NCCL averages the gradients, so every GPU makes the same update (multi_gpu.hpp).
#include "multi_gpu/multi_gpu.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "multi_gpu/multi_gpu_devices.hpp"
#include "multi_gpu/nccl_library.hpp"

namespace gpulab::gpu::multi_gpu {

struct DataParallel::Replicas {
  Layout net;
  int batch = 0;
  GemmFunction gemm = nullptr;
  std::vector<std::unique_ptr<Stream>> streams;
  std::vector<Buffer> params, x, t, workspace, loss;
  std::vector<ncclComm_t> comms;  // one per GPU, from one ncclCommInitAll (empty with one GPU)
  bool use_graph = false;
  std::vector<cudaGraphExec_t> graphs;  // one per GPU, for the step with these:
  float graph_lr = 0;
  Loss graph_loss = Loss::mse;

  void release_graphs() {
    for (std::size_t g = 0; g < graphs.size(); ++g) {
      CurrentDevice on(static_cast<int>(g), true);
      cudaGraphExecDestroy(graphs[g]);
    }
    graphs.clear();
  }
  ~Replicas() {
    release_graphs();
    CurrentDevice on(0, true);  // NCCL switches devices as it tears down
    for (ncclComm_t c : comms) nccl().comm_destroy(c);
  }
};

DataParallel::DataParallel(const Layout& net, int gpus, int batch, GemmFunction gemm, bool graph)
    : r_(std::make_unique<Replicas>()) {
  gpulab::mlp::check_layout(net);
  check_gpus(gpus);
  r_->net = net;
  r_->batch = batch;
  r_->gemm = gemm;
  r_->use_graph = graph;
  for (int g = 0; g < gpus; ++g) {
    CurrentDevice on(g);
    r_->streams.push_back(std::make_unique<Stream>(g));
    r_->params.emplace_back(net.parameters(), "params");
    r_->x.emplace_back(rows(batch, net.inputs()), "x (this GPU's share)");
    r_->t.emplace_back(rows(batch, net.outputs()), "t (this GPU's share)");
    r_->workspace.emplace_back(mlp::step_workspace(net, batch), "workspace");
    r_->loss.emplace_back(1, "loss");
  }
  if (gpus > 1) {
    std::vector<int> devices(static_cast<std::size_t>(gpus));
    for (int g = 0; g < gpus; ++g) devices[static_cast<std::size_t>(g)] = g;
    r_->comms.resize(devices.size());
    CurrentDevice on(0);  // ncclCommInitAll visits every GPU; the guard puts the caller's device back
    GPULAB_NCCL_CHECK(nccl().comm_init_all(r_->comms.data(), gpus, devices.data()));
  }
}

DataParallel::~DataParallel() = default;

int DataParallel::gpus() const { return static_cast<int>(r_->streams.size()); }

void DataParallel::set_parameters(std::span<const float> params) {
  for (int g = 0; g < gpus(); ++g) {
    CurrentDevice on(g);
    r_->params[static_cast<std::size_t>(g)].copy_from(params);
  }
}

void DataParallel::set_batch(std::span<const float> x, std::span<const float> t) {
  const std::size_t xs = rows(r_->batch, r_->net.inputs()), ts = rows(r_->batch, r_->net.outputs());
  if (x.size() != xs * static_cast<std::size_t>(gpus()) || t.size() != ts * static_cast<std::size_t>(gpus())) {
    throw std::invalid_argument("data parallel: x and t must hold gpus × batch examples");
  }
  for (int g = 0; g < gpus(); ++g) {
    CurrentDevice on(g);
    const auto k = static_cast<std::size_t>(g);
    r_->x[k].copy_from(x.subspan(k * xs, xs));
    r_->t[k].copy_from(t.subspan(k * ts, ts));
  }
}

// [snippet:data_parallel_step]
// Each GPU runs lesson 07's layered step on its share, stopping before the update; NCCL then
// replaces every GPU's gradients (and loss) by their average over the GPUs — one all-reduce,
// queued on each GPU's stream inside a group, since one thread drives every GPU — and each GPU
// applies the same update to the same parameters. The averaged gradient of equal shares is the
// gradient of the whole batch, so the step is the one-GPU step on gpus × batch examples.
void DataParallel::queue(float lr, Loss loss) {
  const int n = gpus();
  const std::size_t count = r_->net.parameters();
  std::vector<float*> grads(static_cast<std::size_t>(n));
  for (int g = 0; g < n; ++g) {
    CurrentDevice on(g);
    const auto k = static_cast<std::size_t>(g);
    const StepOptions options{r_->gemm, r_->streams[k]->handle, n == 1};
    mlp::layered_step(r_->net, r_->params[k].span(), r_->x[k].span(), r_->t[k].span(), r_->batch, lr, loss,
                      r_->workspace[k].span(), r_->loss[k].span(), options);
    grads[k] = mlp::step_gradients(r_->net, r_->batch, r_->workspace[k].span()).data();
  }
  if (n > 1) {
    const Nccl& lib = nccl();
    CurrentDevice keep(0);  // the group switches between the GPUs; the guard puts the caller's device back
    GPULAB_NCCL_CHECK(lib.group_start());
    for (int g = 0; g < n; ++g) {
      const auto k = static_cast<std::size_t>(g);
      GPULAB_NCCL_CHECK(
          lib.all_reduce(grads[k], grads[k], count, ncclFloat, ncclAvg, r_->comms[k], r_->streams[k]->handle));
      GPULAB_NCCL_CHECK(lib.all_reduce(r_->loss[k].data(), r_->loss[k].data(), 1, ncclFloat, ncclAvg, r_->comms[k],
                                       r_->streams[k]->handle));
    }
    GPULAB_NCCL_CHECK(lib.group_end());
    for (int g = 0; g < n; ++g) {
      CurrentDevice on(g);
      const auto k = static_cast<std::size_t>(g);
      mlp::sgd(r_->params[k].data(), grads[k], count, lr, {nullptr, r_->streams[k]->handle});
    }
  }
}
// [/snippet]

// [snippet:data_parallel_graph]
// Capturing every GPU's stream at once records the whole step, NCCL's all-reduce included, as one
// graph per GPU; the graphs hold the buffers' addresses and the learning rate.
void DataParallel::capture(float lr, Loss loss) {
  r_->release_graphs();
  const int n = gpus();
  for (int g = 0; g < n; ++g) {
    CurrentDevice on(g);
    GPULAB_CUDA_CHECK(
        cudaStreamBeginCapture(r_->streams[static_cast<std::size_t>(g)]->handle, cudaStreamCaptureModeRelaxed));
  }
  std::vector<cudaGraph_t> graphs(static_cast<std::size_t>(n), nullptr);
  auto end_captures = [&] {
    for (int g = 0; g < n; ++g) {
      CurrentDevice on(g);
      cudaStreamEndCapture(r_->streams[static_cast<std::size_t>(g)]->handle, &graphs[static_cast<std::size_t>(g)]);
    }
  };
  try {
    queue(lr, loss);
  } catch (...) {
    end_captures();  // leaves the streams usable; the error goes on
    for (cudaGraph_t graph : graphs) {
      if (graph != nullptr) cudaGraphDestroy(graph);
    }
    throw;
  }
  end_captures();
  for (int g = 0; g < n; ++g) {
    CurrentDevice on(g);
    cudaGraphExec_t exec = nullptr;
    const cudaError_t made = graphs[static_cast<std::size_t>(g)] == nullptr
                                 ? cudaErrorStreamCaptureInvalidated
                                 : cudaGraphInstantiate(&exec, graphs[static_cast<std::size_t>(g)], 0);
    if (graphs[static_cast<std::size_t>(g)] != nullptr) cudaGraphDestroy(graphs[static_cast<std::size_t>(g)]);
    if (made == cudaSuccess) r_->graphs.push_back(exec);
    GPULAB_CUDA_CHECK(made);
  }
  r_->graph_lr = lr;
  r_->graph_loss = loss;
}
// [/snippet]

void DataParallel::step(float lr, Loss loss) {
  if (!r_->use_graph) {
    queue(lr, loss);
  } else {
    if (r_->graphs.empty() || r_->graph_lr != lr || r_->graph_loss != loss) capture(lr, loss);
    for (int g = 0; g < gpus(); ++g) {
      CurrentDevice on(g);
      const auto k = static_cast<std::size_t>(g);
      GPULAB_CUDA_CHECK(cudaGraphLaunch(r_->graphs[k], r_->streams[k]->handle));
    }
  }
  join_on_gpu0(r_->streams);
}

void DataParallel::parameters(int gpu, std::span<float> out) const {
  CurrentDevice on(gpu);
  GPULAB_CUDA_CHECK(cudaStreamSynchronize(r_->streams[static_cast<std::size_t>(gpu)]->handle));
  r_->params[static_cast<std::size_t>(gpu)].copy_to(out);
}

float DataParallel::loss() const {
  CurrentDevice on(0);
  GPULAB_CUDA_CHECK(cudaStreamSynchronize(r_->streams.front()->handle));
  float value = 0;
  r_->loss.front().copy_to({&value, 1});
  return value;
}

}  // namespace gpulab::gpu::multi_gpu
