// Lesson 08's GPU runs: pageable and pinned copies, chunks over streams, a CUDA graph, and memory
// per run from cudaMalloc or a pool (GPU builds only: the emulator has no copy engines).
#include <optional>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "08_streams/streams_runs.hpp"
#include "common/cuda_handles.hpp"
#include "common/gpu_memory.hpp"
#include "common/results.hpp"
#include "common/stats.hpp"
#include "streams/streams.hpp"

namespace gpulab::streams_runs {

namespace {

namespace st = gpu::streams;

// The copies of one run alone — every copy in on one stream while the copy out runs on another,
// nothing waiting for anything — in milliseconds, the median of `reps` after one warm-up. Copies
// in and out share the link to the host, so this, not the copy in alone, is the time no pipeline
// of these arrays can beat on this machine. Overwrites the device inputs and the host output.
double copies_at_once(const st::HostArrays& host, const st::DeviceArrays& device, int reps = 5) {
  const std::size_t bytes = host.out.size() * sizeof(float);
  const Stream in, out;
  const Event fork(false), joined(false), start, stop;
  std::vector<double> times;
  for (int r = 0; r < reps + 1; ++r) {
    start.record(in.get());
    fork.record(in.get());
    GPULAB_CUDA_CHECK(cudaStreamWaitEvent(out.get(), fork.get()));
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(device.a, host.a.data(), bytes, cudaMemcpyHostToDevice, in.get()));
    if (!host.b.empty()) {
      GPULAB_CUDA_CHECK(cudaMemcpyAsync(device.b, host.b.data(), bytes, cudaMemcpyHostToDevice, in.get()));
    }
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(host.out.data(), device.out, bytes, cudaMemcpyDeviceToHost, out.get()));
    joined.record(out.get());
    GPULAB_CUDA_CHECK(cudaStreamWaitEvent(in.get(), joined.get()));
    stop.record(in.get());
    GPULAB_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    if (r > 0) times.push_back(stop.ms_since(start));
  }
  return summarize(times).median;
}

// Host arrays in pinned memory, or (pageable) in ordinary vectors; b only for the add.
struct HostArrays {
  HostArrays(const StreamsInstance& in, Workload w, bool pinned) : pinned_(pinned) {
    const auto n = static_cast<std::size_t>(in.n);
    const bool two_inputs = w == Workload::add;
    if (pinned) {
      a_pinned.emplace(n, "a (pinned)");
      std::copy(in.a.begin(), in.a.end(), a_pinned->data());
      if (two_inputs) {
        b_pinned.emplace(n, "b (pinned)");
        std::copy(in.b.begin(), in.b.end(), b_pinned->data());
      }
      out_pinned.emplace(n, "out (pinned)");
    } else {
      a = in.a;
      if (two_inputs) b = in.b;
      out.resize(n);
    }
  }
  st::HostArrays spans() {
    if (pinned_) return {a_pinned->span(), b_pinned ? b_pinned->span() : std::span<float>(), out_pinned->span()};
    return {a, b, out};
  }
  bool pinned_;
  std::vector<float> a, b, out;
  std::optional<gpu::HostBuffer<float>> a_pinned, b_pinned, out_pinned;
};

class GpuRun : public Run {
 public:
  GpuRun(const StreamsInstance& in, Workload w, Mode mode, std::string name, int block)
      : in_(in), work_(w), mode_(mode), name_(std::move(name)), block_(block), host_(in, w, mode != Mode::pageable) {
    const auto n = static_cast<std::size_t>(in.n);
    if (mode == Mode::malloc || mode == Mode::pool) {
      memory_.emplace(mode == Mode::malloc ? st::RunMemory::Kind::malloc : st::RunMemory::Kind::pool);
    } else {
      a_.emplace(n, "a");
      if (w == Workload::add) b_.emplace(n, "b");
      out_.emplace(n, "out");
    }
    if (mode == Mode::overlap || mode == Mode::graph || mode == Mode::engines) {
      pipeline_.emplace(in.streams, in.chunks, mode == Mode::engines);
    }
  }
  void poison() override {
    if (out_) out_->fill_bytes(kPoisonByte);
    gpulab::poison(host_.spans().out);
  }
  void upload() override {
    if (mode_ != Mode::pageable && mode_ != Mode::pinned) return;  // the others copy inside compute()
    const st::HostArrays h = host_.spans();
    a_->copy_from(h.a);
    if (work_ == Workload::add) b_->copy_from(h.b);
  }
  void compute() override {
    const st::HostArrays h = host_.spans();
    const st::Work w = work_ == Workload::add ? st::Work::add : st::Work::sigmoid;
    switch (mode_) {
      case Mode::pageable:
      case Mode::pinned:
        st::compute(w, a_->data(), device().b, out_->data(), h.out.size(), block_, nullptr);
        break;
      case Mode::overlap:
      case Mode::engines:
        pipeline_->run(w, h, device(), block_);
        break;
      case Mode::graph:
        pipeline_->run_graph(w, h, device(), block_);
        break;
      case Mode::malloc:
      case Mode::pool: {
        const st::DeviceArrays d = memory_->take(h.out.size(), work_ == Workload::add);
        st::serial_run(w, h, d, block_, cudaStreamLegacy);
        memory_->give_back(d);
        break;
      }
    }
  }
  void download() override {
    if (mode_ == Mode::pageable || mode_ == Mode::pinned) out_->copy_to(host_.spans().out);
  }
  CheckResult check() const override {
    auto& host = const_cast<HostArrays&>(host_);
    return compare(host.spans().out, in_.expected(work_), tolerance_of(work_),
                   fmt::format("{} {} (gpu)", topic(work_), name_));
  }
  int block() const override { return block_; }
  // A pipeline's row says how it was cut, and what its copies alone take in and out at once: the
  // time no pipeline of these arrays beats on this machine (PCIe carries both directions, but
  // each a little slower while the other runs).
  std::string note() const override {
    if (!pipeline_) return {};
    auto& host = const_cast<HostArrays&>(host_);
    const double ms = copies_at_once(host.spans(), const_cast<GpuRun*>(this)->device());
    const std::string cut = pipeline_->by_engine() ? fmt::format("{} chunks, a stream per engine", in_.chunks)
                                                   : fmt::format("{} chunks over {} streams", in_.chunks, in_.streams);
    return fmt::format("{}; its copies alone, in and out at once, take {}", cut, format_ms(ms));
  }

  // The timeline: the serial run and one pipeline run, each recorded after a warm-up.
  Timeline record() {
    const st::HostArrays h = host_.spans();
    const st::Work w = work_ == Workload::add ? st::Work::add : st::Work::sigmoid;
    Timeline t;
    t.variant = name_;
    t.n = in_.n;
    t.streams = in_.streams;
    t.chunks = in_.chunks;
    auto add = [&t](const std::vector<st::Span>& spans) {
      for (const st::Span& s : spans)
        t.spans.push_back({s.stream, s.chunk, st::to_string(s.engine), s.start_ms, s.end_ms});
    };
    for (int i = 0; i < 2; ++i) st::record_serial(w, h, device(), block_);
    add(st::record_serial(w, h, device(), block_));
    for (int i = 0; i < 2; ++i) pipeline_->run(w, h, device(), block_);
    pipeline_->run(w, h, device(), block_, true);
    add(pipeline_->timeline());
    return t;
  }

 private:
  st::DeviceArrays device() { return {a_->data(), b_ ? b_->data() : nullptr, out_->data()}; }

  const StreamsInstance& in_;
  Workload work_;
  Mode mode_;
  std::string name_;
  int block_;
  HostArrays host_;
  std::optional<gpu::DeviceBuffer<float>> a_, b_, out_;
  std::optional<st::Pipeline> pipeline_;
  std::optional<st::RunMemory> memory_;
};

}  // namespace

std::unique_ptr<Run> gpu_run(const StreamsInstance& in, const RunOptions& options, Workload work, Mode mode,
                             const std::string& name) {
  return std::make_unique<GpuRun>(in, work, mode, name, options.block);
}

Timeline record_timeline(const StreamsInstance& in, Workload work, const std::string& name, int block) {
  GpuRun run(in, work, Mode::overlap, name, block);
  return run.record();
}

}  // namespace gpulab::streams_runs
