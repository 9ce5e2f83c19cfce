// Lesson 10, model parallelism: the layers split over the GPUs, activations copied forward from GPU
// to GPU and deltas back (multi_gpu.hpp).
#include "multi_gpu/multi_gpu.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "multi_gpu/multi_gpu_devices.hpp"
#include "multi_gpu/nccl_library.hpp"

namespace gpulab::gpu::multi_gpu {

struct ModelParallel::Stages {
  Layout net;
  int batch = 0;
  GemmFunction gemm = nullptr;
  int used = 1;
  std::vector<int> device;                          // per layer
  std::vector<std::unique_ptr<GpuStream>> streams;  // per GPU used
  std::unique_ptr<Event> started;                   // where every GPU's step starts (fork_from_gpu0)
  // Per layer, on its GPU: W and b (the flat layout's slice), their gradients, its input (x, the
  // previous layer's output, or a copy of it from the previous GPU), its output, its delta, and
  // the delta it hands back to the layer before (dL/dZ of that layer).
  std::vector<Buffer> params, grads, input_copy, output, delta, delta_back;
  Buffer x, t, loss;

  cudaStream_t stream_of(int l) const {
    return streams[static_cast<std::size_t>(device[static_cast<std::size_t>(l)])]->stream.get();
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
  for (int g = 0; g < s.used; ++g) s.streams.push_back(std::make_unique<GpuStream>(g));
  s.started = made_on(0, [] { return std::make_unique<Event>(false); });
  enable_peer_access(s.used);
  const int layers = net.layers();
  for (int l = 0; l < layers; ++l) {
    const int d = l * s.used / layers;
    s.device.push_back(d);
    CurrentDevice on(d);
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
    CurrentDevice on(s.device.front());
    s.x = Buffer(rows(batch, net.inputs()), "x");
  }
  CurrentDevice on(s.device.back());
  s.t = Buffer(rows(batch, net.outputs()), "t");
  s.loss = Buffer(1, "loss");
}

ModelParallel::~ModelParallel() = default;

int ModelParallel::gpus_used() const { return s_->used; }
int ModelParallel::device_of_layer(int l) const { return s_->device.at(static_cast<std::size_t>(l)); }

void ModelParallel::set_parameters(std::span<const float> params) {
  if (params.size() != s_->net.parameters()) throw std::invalid_argument("model parallel: params of the wrong size");
  for (int l = 0; l < s_->net.layers(); ++l) {
    CurrentDevice on(s_->device[static_cast<std::size_t>(l)]);
    s_->params[static_cast<std::size_t>(l)].copy_from(params.subspan(s_->net.weight_offset(l), s_->slice(l)));
  }
}

void ModelParallel::set_batch(std::span<const float> x, std::span<const float> t) {
  {
    CurrentDevice on(s_->device.front());
    s_->x.copy_from(x);
  }
  CurrentDevice on(s_->device.back());
  s_->t.copy_from(t);
}

namespace {

// A copy from GPU `from` to GPU `to`, in order after the work queued on `from`'s stream, and
// before what is queued on `to`'s stream next.
void hand_over(float* dst, int to, cudaStream_t to_stream, const float* src, int from, cudaStream_t from_stream,
               std::size_t count, cudaEvent_t ready) {
  CurrentDevice on(from);
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
  fork_from_gpu0(*s.started, s.streams);
  for (int l = 0; l < layers; ++l) {
    const auto k = static_cast<std::size_t>(l);
    if (l > 0 && s.device[k] != s.device[k - 1]) {
      hand_over(s.input_copy[k].data(), s.device[k], s.stream_of(l), s.output[k - 1].data(), s.device[k - 1],
                s.stream_of(l - 1), rows(s.batch, size(l)),
                s.streams[static_cast<std::size_t>(s.device[k - 1])]->done.get());
    }
    CurrentDevice on(s.device[k]);
    const float* w = s.params[k].data();
    mlp::forward_layer(w, w + s.net.weights(l), s.input_of(l), s.output[k].data(), s.batch, size(l), size(l + 1),
                       options(l));
  }
  {
    CurrentDevice on(s.device.back());
    mlp::output_delta(s.output.back().data(), s.t.data(), s.delta.back().data(), s.loss.data(),
                      static_cast<int>(rows(s.batch, s.net.outputs())), loss, options(layers - 1));
  }
  for (int l = layers - 1; l >= 0; --l) {
    const auto k = static_cast<std::size_t>(l);
    {
      CurrentDevice on(s.device[k]);
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
                s.stream_of(l), rows(s.batch, size(l)), s.streams[static_cast<std::size_t>(s.device[k])]->done.get());
    }
  }
  join_on_gpu0(s.streams);
}
// [/snippet]

void ModelParallel::parameters(std::span<float> out) const {
  if (out.size() != s_->net.parameters()) throw std::invalid_argument("model parallel: params of the wrong size");
  for (int l = 0; l < s_->net.layers(); ++l) {
    const auto k = static_cast<std::size_t>(l);
    CurrentDevice on(s_->device[k]);
    GPULAB_CUDA_CHECK(cudaStreamSynchronize(s_->stream_of(l)));
    s_->params[k].copy_to(out.subspan(s_->net.weight_offset(l), s_->slice(l)));
  }
}

float ModelParallel::loss() const {
  CurrentDevice on(s_->device.back());
  GPULAB_CUDA_CHECK(cudaStreamSynchronize(s_->stream_of(s_->net.layers() - 1)));
  float value = 0;
  s_->loss.copy_to({&value, 1});
  return value;
}

}  // namespace gpulab::gpu::multi_gpu
