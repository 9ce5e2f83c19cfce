// Lesson 10: data and model parallelism over the GPUs of one machine, from lesson 07's layer
// kernels (kernels/mlp), NCCL for the all-reduce, and peer copies between GPUs.
#include "multi_gpu/multi_gpu.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/cuda_check.hpp"
#include "common/gpu_memory.hpp"
#include "multi_gpu/nccl_library.hpp"

namespace gpulab::gpu::multi_gpu {

namespace {

using gpulab::mlp::StepOptions;
using Buffer = gpu::DeviceBuffer<float>;

std::size_t rows(int batch, int width) { return static_cast<std::size_t>(batch) * static_cast<std::size_t>(width); }

// Makes `device` current for the lifetime of a scope, then puts back the one that was current
// before (always: a library called inside, such as NCCL, may switch devices too). `quiet`, for
// destructors: errors are ignored, as nothing is left to do about them there.
class OnDevice {
 public:
  explicit OnDevice(int device, bool quiet = false) {
    if (quiet) {
      restore_ = cudaGetDevice(&previous_) == cudaSuccess && cudaSetDevice(device) == cudaSuccess;
      return;
    }
    GPULAB_CUDA_CHECK(cudaGetDevice(&previous_));
    GPULAB_CUDA_CHECK(cudaSetDevice(device));
    restore_ = true;
  }
  ~OnDevice() {
    if (restore_) cudaSetDevice(previous_);
  }
  OnDevice(const OnDevice&) = delete;
  OnDevice& operator=(const OnDevice&) = delete;

 private:
  int previous_ = 0;
  bool restore_ = false;
};

struct Stream {
  explicit Stream(int gpu) : device(gpu) {
    OnDevice on(gpu);
    GPULAB_CUDA_CHECK(cudaStreamCreateWithFlags(&handle, cudaStreamNonBlocking));
    GPULAB_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
  }
  ~Stream() {
    OnDevice on(device, true);
    cudaEventDestroy(done);
    cudaStreamDestroy(handle);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  int device;
  cudaStream_t handle = nullptr;
  cudaEvent_t done = nullptr;  // recorded at the end of a step
};

void check_gpus(int gpus) {
  const int visible = visible_gpus();
  if (gpus < 1) throw std::invalid_argument("multi-GPU: at least one GPU");
  if (gpus > visible) {
    throw std::invalid_argument("asks for " + std::to_string(gpus) + " GPUs; " + std::to_string(visible) +
                                " visible here");
  }
}

// GPU 0's default stream waits for every stream's last recorded event, so events recorded there
// after step() time the whole step on every GPU.
void join_on_gpu0(const std::vector<std::unique_ptr<Stream>>& streams) {
  for (const auto& s : streams) {
    OnDevice on(s->device);
    GPULAB_CUDA_CHECK(cudaEventRecord(s->done, s->handle));
  }
  OnDevice on(0);
  for (const auto& s : streams) GPULAB_CUDA_CHECK(cudaStreamWaitEvent(cudaStreamLegacy, s->done));
}

// Lets each GPU read and write the others' memory directly where the hardware allows (NVLink or
// PCIe peer-to-peer); elsewhere cudaMemcpyPeerAsync goes through the host.
void enable_peer_access(int gpus) {
  for (int a = 0; a < gpus; ++a) {
    for (int b = 0; b < gpus; ++b) {
      int can = 0;
      if (a == b || cudaDeviceCanAccessPeer(&can, a, b) != cudaSuccess || can == 0) continue;
      OnDevice on(a);
      const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
      if (e == cudaErrorPeerAccessAlreadyEnabled) {
        cudaGetLastError();  // not an error for us: clear it
      } else {
        GPULAB_CUDA_CHECK(e);
      }
    }
  }
}

}  // namespace

int visible_gpus() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return count;
}

// ---------------------------------------------------------------- data parallel

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
      OnDevice on(static_cast<int>(g), true);
      cudaGraphExecDestroy(graphs[g]);
    }
    graphs.clear();
  }
  ~Replicas() {
    release_graphs();
    OnDevice on(0, true);  // NCCL switches devices as it tears down
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
    OnDevice on(g);
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
    OnDevice on(0);  // ncclCommInitAll visits every GPU; the guard puts the caller's device back
    GPULAB_NCCL_CHECK(nccl().comm_init_all(r_->comms.data(), gpus, devices.data()));
  }
}

DataParallel::~DataParallel() = default;

int DataParallel::gpus() const { return static_cast<int>(r_->streams.size()); }

void DataParallel::set_parameters(std::span<const float> params) {
  for (int g = 0; g < gpus(); ++g) {
    OnDevice on(g);
    r_->params[static_cast<std::size_t>(g)].copy_from(params);
  }
}

void DataParallel::set_batch(std::span<const float> x, std::span<const float> t) {
  const std::size_t xs = rows(r_->batch, r_->net.inputs()), ts = rows(r_->batch, r_->net.outputs());
  if (x.size() != xs * static_cast<std::size_t>(gpus()) || t.size() != ts * static_cast<std::size_t>(gpus())) {
    throw std::invalid_argument("data parallel: x and t must hold gpus × batch examples");
  }
  for (int g = 0; g < gpus(); ++g) {
    OnDevice on(g);
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
    OnDevice on(g);
    const auto k = static_cast<std::size_t>(g);
    const StepOptions options{r_->gemm, r_->streams[k]->handle, nullptr, nullptr, n == 1};
    mlp::layered_step(r_->net, r_->params[k].span(), r_->x[k].span(), r_->t[k].span(), r_->batch, lr, loss,
                      r_->workspace[k].span(), r_->loss[k].span(), options);
    grads[k] = mlp::step_gradients(r_->net, r_->batch, r_->workspace[k].span()).data();
  }
  if (n > 1) {
    const Nccl& lib = nccl();
    OnDevice keep(0);  // the group switches between the GPUs; the guard puts the caller's device back
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
      OnDevice on(g);
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
    OnDevice on(g);
    GPULAB_CUDA_CHECK(
        cudaStreamBeginCapture(r_->streams[static_cast<std::size_t>(g)]->handle, cudaStreamCaptureModeRelaxed));
  }
  std::vector<cudaGraph_t> graphs(static_cast<std::size_t>(n), nullptr);
  auto end_captures = [&] {
    for (int g = 0; g < n; ++g) {
      OnDevice on(g);
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
    OnDevice on(g);
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
      OnDevice on(g);
      const auto k = static_cast<std::size_t>(g);
      GPULAB_CUDA_CHECK(cudaGraphLaunch(r_->graphs[k], r_->streams[k]->handle));
    }
  }
  join_on_gpu0(r_->streams);
}

void DataParallel::parameters(int gpu, std::span<float> out) const {
  OnDevice on(gpu);
  GPULAB_CUDA_CHECK(cudaStreamSynchronize(r_->streams[static_cast<std::size_t>(gpu)]->handle));
  r_->params[static_cast<std::size_t>(gpu)].copy_to(out);
}

float DataParallel::loss() const {
  OnDevice on(0);
  GPULAB_CUDA_CHECK(cudaStreamSynchronize(r_->streams.front()->handle));
  float value = 0;
  r_->loss.front().copy_to({&value, 1});
  return value;
}

// ---------------------------------------------------------------- model parallel

struct ModelParallel::Stages {
  Layout net;
  int batch = 0;
  GemmFunction gemm = nullptr;
  int used = 1;
  std::vector<int> device;                       // per layer
  std::vector<std::unique_ptr<Stream>> streams;  // per GPU used
  // Per layer, on its GPU: W and b (the flat layout's slice), their gradients, its input (x, the
  // previous layer's output, or a copy of it from the previous GPU), its output, its delta, and
  // the delta it hands back to the layer before (dL/dZ of that layer).
  std::vector<Buffer> params, grads, input_copy, output, delta, delta_back;
  Buffer x, t, loss;

  cudaStream_t stream_of(int l) const {
    return streams[static_cast<std::size_t>(device[static_cast<std::size_t>(l)])]->handle;
  }
  const float* input_of(int l) const {
    const auto k = static_cast<std::size_t>(l);
    if (l == 0) return x.data();
    return device[k] == device[k - 1] ? output[k - 1].data() : input_copy[k].data();
  }
  std::size_t slice(int l) const {
    return net.weights(l) + static_cast<std::size_t>(net.sizes[static_cast<std::size_t>(l) + 1]);
  }
};

ModelParallel::ModelParallel(const Layout& net, int gpus, int batch, GemmFunction gemm)
    : s_(std::make_unique<Stages>()) {
  gpulab::mlp::check_layout(net);
  check_gpus(gpus);
  Stages& s = *s_;
  s.net = net;
  s.batch = batch;
  s.gemm = gemm;
  s.used = std::min(gpus, net.layers());
  for (int g = 0; g < s.used; ++g) s.streams.push_back(std::make_unique<Stream>(g));
  enable_peer_access(s.used);
  const int layers = net.layers();
  for (int l = 0; l < layers; ++l) {
    const int d = l * s.used / layers;
    s.device.push_back(d);
    OnDevice on(d);
    const int in = net.sizes[static_cast<std::size_t>(l)], out = net.sizes[static_cast<std::size_t>(l) + 1];
    s.params.emplace_back(s.slice(l), "W and b");
    s.grads.emplace_back(s.slice(l), "dW and db");
    const bool crosses = l > 0 && s.device[static_cast<std::size_t>(l) - 1] != d;
    s.input_copy.emplace_back(crosses ? rows(batch, in) : 0, "input from the previous GPU");
    s.output.emplace_back(rows(batch, out), "activations");
    s.delta.emplace_back(rows(batch, out), "delta");
    s.delta_back.emplace_back(l > 0 ? rows(batch, in) : 0, "delta for the previous layer");
  }
  {
    OnDevice on(s.device.front());
    s.x = Buffer(rows(batch, net.inputs()), "x");
  }
  OnDevice on(s.device.back());
  s.t = Buffer(rows(batch, net.outputs()), "t");
  s.loss = Buffer(1, "loss");
}

ModelParallel::~ModelParallel() = default;

int ModelParallel::gpus_used() const { return s_->used; }
int ModelParallel::device_of_layer(int l) const { return s_->device.at(static_cast<std::size_t>(l)); }

void ModelParallel::set_parameters(std::span<const float> params) {
  if (params.size() != s_->net.parameters()) throw std::invalid_argument("model parallel: params of the wrong size");
  for (int l = 0; l < s_->net.layers(); ++l) {
    OnDevice on(s_->device[static_cast<std::size_t>(l)]);
    s_->params[static_cast<std::size_t>(l)].copy_from(params.subspan(s_->net.weight_offset(l), s_->slice(l)));
  }
}

void ModelParallel::set_batch(std::span<const float> x, std::span<const float> t) {
  {
    OnDevice on(s_->device.front());
    s_->x.copy_from(x);
  }
  OnDevice on(s_->device.back());
  s_->t.copy_from(t);
}

namespace {

// A copy from GPU `from` to GPU `to`, in order after the work queued on `from`'s stream, and
// before what is queued on `to`'s stream next.
void hand_over(float* dst, int to, cudaStream_t to_stream, const float* src, int from, cudaStream_t from_stream,
               std::size_t count, cudaEvent_t ready) {
  OnDevice on(from);
  GPULAB_CUDA_CHECK(cudaMemcpyPeerAsync(dst, to, src, from, count * sizeof(float), from_stream));
  GPULAB_CUDA_CHECK(cudaEventRecord(ready, from_stream));
  GPULAB_CUDA_CHECK(cudaStreamWaitEvent(to_stream, ready));
}

}  // namespace

// [snippet:model_parallel_step]
// The forward pass walks the layers GPU by GPU, each GPU's output copied to the next GPU; the
// backward pass walks back, each delta copied to the GPU before. While one GPU works, the others
// wait for it: splitting the layers saves memory per GPU, not time (pipelining micro-batches,
// which this lesson does not do, is what fills those gaps).
void ModelParallel::step(float lr, Loss loss) {
  Stages& s = *s_;
  const int layers = s.net.layers();
  auto options = [&](int l) { return StepOptions{s.gemm, s.stream_of(l)}; };
  auto size = [&](int l) { return s.net.sizes[static_cast<std::size_t>(l)]; };
  for (int l = 0; l < layers; ++l) {
    const auto k = static_cast<std::size_t>(l);
    if (l > 0 && s.device[k] != s.device[k - 1]) {
      hand_over(s.input_copy[k].data(), s.device[k], s.stream_of(l), s.output[k - 1].data(), s.device[k - 1],
                s.stream_of(l - 1), rows(s.batch, size(l)), s.streams[static_cast<std::size_t>(s.device[k - 1])]->done);
    }
    OnDevice on(s.device[k]);
    const float* w = s.params[k].data();
    mlp::forward_layer(w, w + s.net.weights(l), s.input_of(l), s.output[k].data(), s.batch, size(l), size(l + 1),
                       options(l));
  }
  {
    OnDevice on(s.device.back());
    mlp::output_delta(s.output.back().data(), s.t.data(), s.delta.back().data(), s.loss.data(),
                      static_cast<int>(rows(s.batch, s.net.outputs())), loss, options(layers - 1));
  }
  for (int l = layers - 1; l >= 0; --l) {
    const auto k = static_cast<std::size_t>(l);
    {
      OnDevice on(s.device[k]);
      const float* w = s.params[k].data();
      float* dw = s.grads[k].data();
      // The previous layer's delta: straight into its buffer on the same GPU, else into this one's
      // hand-back buffer and then across.
      const bool same = l > 0 && s.device[k - 1] == s.device[k];
      float* back = l == 0 ? nullptr : same ? s.delta[k - 1].data() : s.delta_back[k].data();
      mlp::backward_layer(s.delta[k].data(), s.input_of(l), w, dw, dw + s.net.weights(l), back, s.batch, size(l),
                          size(l + 1), options(l));
      mlp::sgd(s.params[k].data(), dw, s.slice(l), lr, options(l));
    }
    if (l > 0 && s.device[k - 1] != s.device[k]) {
      hand_over(s.delta[k - 1].data(), s.device[k - 1], s.stream_of(l - 1), s.delta_back[k].data(), s.device[k],
                s.stream_of(l), rows(s.batch, size(l)), s.streams[static_cast<std::size_t>(s.device[k])]->done);
    }
  }
  join_on_gpu0(s.streams);
}
// [/snippet]

void ModelParallel::parameters(std::span<float> out) const {
  if (out.size() != s_->net.parameters()) throw std::invalid_argument("model parallel: params of the wrong size");
  for (int l = 0; l < s_->net.layers(); ++l) {
    const auto k = static_cast<std::size_t>(l);
    OnDevice on(s_->device[k]);
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(s_->stream_of(l)));
    s_->params[k].copy_to(out.subspan(s_->net.weight_offset(l), s_->slice(l)));
  }
}

float ModelParallel::loss() const {
  OnDevice on(s_->device.back());
  GPULAB_CUDA_CHECK(cudaStreamSynchronize(s_->stream_of(s_->net.layers() - 1)));
  float value = 0;
  s_->loss.copy_to({&value, 1});
  return value;
}

}  // namespace gpulab::gpu::multi_gpu
