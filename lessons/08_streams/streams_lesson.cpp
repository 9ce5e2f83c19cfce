// Lesson 08, streams: the workloads (c = a + b, y = σ(x)), the variants and what they count.
// Every variant's output is checked against float64, like lessons 01 and 04. What differs is
// how the data travels, so the column to compare is the end-to-end time ("total").
#include "08_streams/streams_lesson.hpp"

#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "common/random.hpp"
#include "common/results.hpp"
#include "common/targets.hpp"
#include "common/verify.hpp"
#include "sigmoid/sigmoid.hpp"
#include "vector_add/vector_add.hpp"
#if GPULAB_HAVE_CUDA
#include "streams/streams.hpp"
#endif

namespace gpulab {

namespace {

enum class Workload { add, sigmoid };

struct StreamsInstance : Instance {
  std::int64_t n = 0;
  int chunks = 0, streams = 0;
  std::vector<float> a, b;
  std::vector<double> sum, sigmoid;  // the float64 references: a + b and σ(a)
  const std::vector<double>& expected(Workload w) const { return w == Workload::add ? sum : sigmoid; }
};

// a + b is exact up to the one rounding of the float sum; σ as in lesson 04 (expf within 2 ulp).
Tolerance tolerance_of(Workload w) { return w == Workload::add ? Tolerance{1e-7, 0} : Tolerance{1e-6, 1e-30}; }
const char* topic(Workload w) { return w == Workload::add ? "vector add" : "sigmoid"; }

// ---- the CPU: every core, as in lessons 01 and 04

class CpuRun : public Run {
 public:
  CpuRun(const StreamsInstance& in, Workload w, std::string name)
      : in_(in), work_(w), name_(std::move(name)), out_(static_cast<std::size_t>(in.n)) {}
  void poison() override { gpulab::poison(out_); }
  void compute() override {
    if (work_ == Workload::add) {
      vector_add::cpu_threads(in_.a, in_.b, out_);
    } else {
      sigmoid::cpu_threads(in_.a, out_);
    }
  }
  CheckResult check() const override {
    return compare(out_, in_.expected(work_), tolerance_of(work_), fmt::format("{} {} (cpu)", topic(work_), name_));
  }

 private:
  const StreamsInstance& in_;
  Workload work_;
  std::string name_;
  std::vector<float> out_;
};

#if GPULAB_HAVE_CUDA
namespace st = gpu::streams;

// How a GPU run moves its data.
enum class Mode {
  pageable,  // copy in, kernel, copy out, one after the other, host memory from the heap
  pinned,    // the same from page-locked memory
  overlap,   // chunks over streams: copies and kernels at the same time
  graph,     // the overlap's operations captured once as a CUDA graph
  malloc,    // pinned, with cudaMalloc and cudaFree of the device arrays inside every run
  pool,      // pinned, with cudaMallocAsync and cudaFreeAsync from a memory pool
};

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
    if (mode == Mode::overlap || mode == Mode::graph) pipeline_.emplace(in.streams, in.chunks);
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
  std::string note() const override {
    if (pipeline_) return fmt::format("{} chunks over {} streams", in_.chunks, in_.streams);
    return {};
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
#endif

// ---- variants

using Backends = std::vector<std::pair<Backend, RunFactory>>;

Backends cpu(Workload w, const std::string& name) {
  return {{Backend::cpu,
           factory<StreamsInstance>([=](const StreamsInstance& in, const RunOptions&) -> std::unique_ptr<Run> {
             return std::make_unique<CpuRun>(in, w, name);
           })}};
}

#if GPULAB_HAVE_CUDA
Backends gpu_backends(Workload w, Mode mode, const std::string& name) {
  return {{Backend::gpu,
           factory<StreamsInstance>([=](const StreamsInstance& in, const RunOptions& o) -> std::unique_ptr<Run> {
             return std::make_unique<GpuRun>(in, w, mode, name, o.block);
           })},
          {Backend::emulated, not_emulated("copy engines and streams")}};
}
#define GPULAB_STREAMS(w, mode, name) gpu_backends(w, Mode::mode, name)
#else
#define GPULAB_STREAMS(w, mode, name)                               \
  Backends {                                                        \
    { Backend::emulated, not_emulated("copy engines and streams") } \
  }
#endif

constexpr int kDefaultChunks = 16, kDefaultStreams = 4;

Problem problem_of(std::int64_t n) { return {n, {{"chunks", kDefaultChunks}, {"streams", kDefaultStreams}}}; }

// "N:CHUNKS:STREAMS"
Problem parse_shape(const std::string& text) {
  std::int64_t n = 0;
  int chunks = 0, streams = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%ld:%d:%d%c", &n, &chunks, &streams, &tail) != 3) {
    throw std::invalid_argument("'" + text + "' is not N:CHUNKS:STREAMS (e.g. 67108864:16:4)");
  }
  if (n < 0 || n > (std::int64_t{1} << 30)) throw std::invalid_argument("N must be 0 to 2^30 elements");
  if (chunks < 1 || chunks > 4096) throw std::invalid_argument("CHUNKS must be 1 to 4096");
  if (streams < 1 || streams > 64) throw std::invalid_argument("STREAMS must be 1 to 64");
  return {n, {{"chunks", chunks}, {"streams", streams}}};
}

// Per element, add: read a and b, write c (12 bytes), 1 FLOP; σ: 8 bytes, 4 operations.
Counts counts_of(Workload w, const Problem& p) {
  const auto n = static_cast<double>(p.n);
  return w == Workload::add ? Counts{n, 12 * n, 8 * n, 4 * n} : Counts{4 * n, 8 * n, 4 * n, 4 * n};
}
// Variants that copy inside their timed compute: the rate is the bytes over the bus per second.
Counts bus_counts(Workload w, const Problem& p) {
  Counts c = counts_of(w, p);
  c.bytes = c.h2d_bytes + c.d2h_bytes;
  return c;
}

Variant variant(Workload w, std::string name, std::string description, Backends backends, bool copies_inside) {
  Variant v{std::move(name), std::move(description), std::move(backends)};
  if (copies_inside) {
    v.counts = [w](const Problem& p) { return bus_counts(w, p); };
  } else {
    v.counts = [w](const Problem& p) { return counts_of(w, p); };
  }
  return v;
}

Footprint footprint_of(const Problem& p) {
  const auto n = static_cast<double>(p.n);
  // Host: a, b, the two float64 references, pinned copies of a, b and out; device: a, b, out.
  return {4 * 2 * n + 8 * 2 * n + 4 * 3 * n, 4 * 3 * n};
}

std::unique_ptr<Instance> make_instance_of(const Problem& p, std::uint64_t seed) {
  auto in = std::make_unique<StreamsInstance>();
  in->n = p.n;
  in->chunks = static_cast<int>(p.dim("chunks", kDefaultChunks));
  in->streams = static_cast<int>(p.dim("streams", kDefaultStreams));
  const auto n = static_cast<std::size_t>(p.n);
  in->a.resize(n);
  in->b.resize(n);
  fill_uniform(in->a, seed, 0, -20.0f, 20.0f);
  fill_uniform(in->b, seed, 1, -20.0f, 20.0f);
  in->sum.resize(n);
  in->sigmoid.resize(n);
  const auto count = static_cast<std::ptrdiff_t>(n);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < count; ++i) {
    const auto k = static_cast<std::size_t>(i);
    in->sum[k] = static_cast<double>(in->a[k]) + static_cast<double>(in->b[k]);
    in->sigmoid[k] = 1.0 / (1.0 + std::exp(-static_cast<double>(in->a[k])));
  }
  return in;
}

Timeline timeline_of([[maybe_unused]] const Problem& p, const std::string& variant_name, [[maybe_unused]] int block) {
  const std::string name = variant_name.empty() ? "sigmoid_overlap" : variant_name;
  if (name != "add_overlap" && name != "sigmoid_overlap") {
    throw NotApplicable("a timeline is recorded for add_overlap and sigmoid_overlap, not " + name);
  }
#if GPULAB_HAVE_CUDA
  if (!device_info().available) throw NotApplicable("a timeline is recorded on a GPU: " + device_info().reason);
  const auto instance = make_instance_of(p, 1);
  const auto& in = static_cast<const StreamsInstance&>(*instance);
  GpuRun run(in, name == "add_overlap" ? Workload::add : Workload::sigmoid, Mode::overlap, name, block);
  Timeline t = run.record();
  t.device = device_info().name;
  t.recorded = utc_now_iso8601();
  return t;
#else
  throw NotApplicable("a timeline is recorded on a GPU; this is an emulated-only build");
#endif
}

Lesson make_lesson() {
  Lesson l;
  l.id = "08";
  l.name = "streams";
  l.title = "Streams and async copies";
  l.summary = "Pinned memory, copies and kernels overlapped over streams, CUDA graphs, stream-ordered memory pools";
  l.text_file = "docs/lessons/08-streams.md";
  l.sources = {"kernels/streams/streams.cu", "kernels/streams"};
  l.size_help = "elements per array";
  l.default_n = std::int64_t{1} << 24;
  l.max_n = std::int64_t{1} << 30;
  l.sweep = {1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24, 1 << 26, 1 << 28};
  l.test_sizes = {0, 1, 31, 1000, 1023, (1 << 20) + 3};
  l.test_problems = {parse_shape("1:16:4"),   parse_shape("31:16:4"),      parse_shape("1023:7:3"),
                     parse_shape("1000:1:1"), parse_shape("1048579:16:4"), parse_shape("5:64:8"),
                     parse_shape("0:4:2")};
  l.problem = problem_of;
  l.parse_shape = parse_shape;
  l.shape_help = "N:CHUNKS:STREAMS — N elements in CHUNKS pieces over STREAMS streams (default N:16:4)";
  l.counts = [](const Problem& p) { return counts_of(Workload::add, p); };
  l.footprint = footprint_of;
  l.make_instance = make_instance_of;
  l.timeline = timeline_of;
  l.timeline_variants = {{"sigmoid_overlap", "σ(x)"}, {"add_overlap", "a + b"}};
  l.recorded_timeline = "assets/timelines/lesson08-h100.json";
  const auto add = Workload::add, sig = Workload::sigmoid;
  l.variants = {
      variant(add, "cpu_add", "c = a + b on every CPU core: nothing to copy", cpu(add, "cpu_add"), false),
      variant(sig, "cpu_sigmoid", "σ(x) on every CPU core", cpu(sig, "cpu_sigmoid"), false),
      variant(add, "add_pageable", "Copy in, add, copy out, one after the other, from pageable (heap) memory",
              GPULAB_STREAMS(add, pageable, "add_pageable"), false),
      variant(add, "add_pinned", "The same from pinned memory: the copy engines read it directly",
              GPULAB_STREAMS(add, pinned, "add_pinned"), false),
      variant(add, "add_overlap",
              "Chunks over streams, copies and kernels overlapped (all in 'kernel'; rate: bus bytes/s)",
              GPULAB_STREAMS(add, overlap, "add_overlap"), true),
      variant(add, "add_graph", "add_overlap captured once as a CUDA graph: one launch for every chunk's operations",
              GPULAB_STREAMS(add, graph, "add_graph"), true),
      variant(add, "add_malloc", "add_pinned with cudaMalloc and cudaFree of the device arrays in every run",
              GPULAB_STREAMS(add, malloc, "add_malloc"), true),
      variant(add, "add_pool", "add_pinned with cudaMallocAsync and cudaFreeAsync from a memory pool in every run",
              GPULAB_STREAMS(add, pool, "add_pool"), true),
      variant(sig, "sigmoid_pinned", "Copy in, σ, copy out, one after the other, from pinned memory",
              GPULAB_STREAMS(sig, pinned, "sigmoid_pinned"), false),
      variant(sig, "sigmoid_overlap", "Chunks over streams: as much in as out, so both copy engines stay busy",
              GPULAB_STREAMS(sig, overlap, "sigmoid_overlap"), true),
      variant(sig, "sigmoid_graph", "sigmoid_overlap captured once as a CUDA graph",
              GPULAB_STREAMS(sig, graph, "sigmoid_graph"), true),
  };
  return l;
}

}  // namespace

const Lesson& streams_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
