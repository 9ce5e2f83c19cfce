// Lesson 08, streams: the workloads (c = a + b, y = σ(x)), the variants and what they count.
// Every variant's output is checked against float64, like lessons 01 and 04. What differs is
// how the data travels, so the column to compare is the end-to-end time ("total").
#include "common/lesson.hpp"

#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "08_streams/streams_runs.hpp"
#include "common/random.hpp"
#include "common/results.hpp"
#include "common/targets.hpp"
#include "common/verify.hpp"
#include "sigmoid/sigmoid.hpp"
#include "vector_add/vector_add.hpp"

namespace gpulab {

namespace {

using namespace streams_runs;

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

// ---- variants

using Backends = std::vector<std::pair<Backend, RunFactory>>;

Backends cpu(Workload w, const std::string& name) {
  return {{Backend::cpu,
           factory<StreamsInstance>([=](const StreamsInstance& in, const RunOptions&) -> std::unique_ptr<Run> {
             return std::make_unique<CpuRun>(in, w, name);
           })}};
}

// A GPU run (on the emulator it is skipped: the emulator has no copy engines).
Backends gpu_backends(Workload w, Mode mode, const std::string& name) {
  return on_devices(factory<StreamsInstance>(
      [=](const StreamsInstance& in, const RunOptions& o) { return streams_runs::gpu_run(in, o, w, mode, name); }));
}

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

Timeline timeline_of(const Problem& p, const std::string& variant_name, int block) {
  const std::string name = variant_name.empty() ? "sigmoid_overlap" : variant_name;
  if (name != "add_overlap" && name != "sigmoid_overlap") {
    throw NotApplicable("a timeline is recorded for add_overlap and sigmoid_overlap, not " + name);
  }
  if (!kGpuBuilt) throw NotApplicable("a timeline is recorded on a GPU; this is an emulated-only build");
  if (!device_info().available) throw NotApplicable("a timeline is recorded on a GPU: " + device_info().reason);
  const auto instance = make_instance_of(p, 1);
  const auto& in = static_cast<const StreamsInstance&>(*instance);
  UseDevice on_gpu(Backend::gpu);
  Timeline t = record_timeline(in, name == "add_overlap" ? Workload::add : Workload::sigmoid, name, block);
  t.device = device_info().name;
  t.recorded = utc_now_iso8601();
  return t;
}

Lesson make_lesson() {
  Lesson l;
  l.title = "Streams and async copies";
  l.summary = "Pinned memory, copies and kernels overlapped over streams, CUDA graphs, stream-ordered memory pools";
  l.sources = {"kernels/streams/streams.cu"};
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
  l.timeline = Timelines{.record = timeline_of,
                         .variants = {{"sigmoid_overlap", "σ(x)"}, {"add_overlap", "a + b"}},
                         .recorded = "assets/timelines/lesson08-h100.json"};
  const auto add = Workload::add, sig = Workload::sigmoid;
  l.variants = {
      variant(add, "cpu_add", "c = a + b on every CPU core: nothing to copy", cpu(add, "cpu_add"), false),
      variant(sig, "cpu_sigmoid", "σ(x) on every CPU core", cpu(sig, "cpu_sigmoid"), false),
      variant(add, "add_pageable", "Copy in, add, copy out, one after the other, from pageable (heap) memory",
              gpu_backends(add, Mode::pageable, "add_pageable"), false),
      variant(add, "add_pinned", "The same from pinned memory: the copy engines read it directly",
              gpu_backends(add, Mode::pinned, "add_pinned"), false),
      variant(add, "add_overlap",
              "Chunks over streams, copies and kernels overlapped (all in 'kernel'; rate: bus bytes/s)",
              gpu_backends(add, Mode::overlap, "add_overlap"), true),
      variant(add, "add_graph", "add_overlap captured once as a CUDA graph: one launch for every chunk's operations",
              gpu_backends(add, Mode::graph, "add_graph"), true),
      variant(add, "add_engines",
              "add_overlap's chunks over one stream per engine, each step waiting for its chunk's step before it",
              gpu_backends(add, Mode::engines, "add_engines"), true),
      variant(add, "add_malloc", "add_pinned with cudaMalloc and cudaFree of the device arrays in every run",
              gpu_backends(add, Mode::malloc, "add_malloc"), true),
      variant(add, "add_pool", "add_pinned with cudaMallocAsync and cudaFreeAsync from a memory pool in every run",
              gpu_backends(add, Mode::pool, "add_pool"), true),
      variant(sig, "sigmoid_pinned", "Copy in, σ, copy out, one after the other, from pinned memory",
              gpu_backends(sig, Mode::pinned, "sigmoid_pinned"), false),
      variant(sig, "sigmoid_overlap", "Chunks over streams: as much in as out, so both copy engines stay busy",
              gpu_backends(sig, Mode::overlap, "sigmoid_overlap"), true),
      variant(sig, "sigmoid_graph", "sigmoid_overlap captured once as a CUDA graph",
              gpu_backends(sig, Mode::graph, "sigmoid_graph"), true),
      variant(sig, "sigmoid_engines", "sigmoid_overlap's chunks over one stream per engine",
              gpu_backends(sig, Mode::engines, "sigmoid_engines"), true),
  };
  return l;
}

}  // namespace

// Lesson 08: hiding the copies. Pageable against pinned memory, copies and kernels in chunks over
// several streams, the same chunks as one CUDA graph, and device memory per run from cudaMalloc
// against a stream-ordered pool; on lesson 01's and 04's workloads.
const Lesson& streams_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
