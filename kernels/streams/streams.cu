// Lesson 08: streams, asynchronous copies, CUDA graphs and stream-ordered memory (GPU only: the
// emulator runs kernels, not copy engines).
//
//   compute      the two kernels, on a stream of the caller's
//   Pipeline     chunks of the arrays over several streams: copy in → kernel → copy out each, so
//                the copy engines and the multiprocessors work at the same time on different chunks
//   run_graph    the same operations captured once in a CUDA graph
//   RunMemory    cudaMalloc/cudaFree against cudaMallocAsync/cudaFreeAsync from a memory pool
//
// Run them: lesson08_streams --n 67108864 --variant all
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/launch.cuh"
#include "streams/streams.hpp"

namespace gpulab::streams {

namespace {

// ---------------------------------------------------------------- kernels

// Grid-stride loops as in lessons 01 and 04: one thread per element of a chunk, any size.
__global__ void add_kernel(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
}

__global__ void sigmoid_kernel(const float* x, float* y, std::size_t n) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    y[i] = 1.0f / (1.0f + expf(-x[i]));
  }
}

}  // namespace

const char* to_string(Span::Engine e) {
  switch (e) {
    case Span::Engine::copy_in:
      return "copy in";
    case Span::Engine::kernel:
      return "kernel";
    case Span::Engine::copy_out:
      return "copy out";
  }
  return "?";
}

// ---------------------------------------------------------------- launchers

void compute(Work work, const float* a, const float* b, float* out, std::size_t n, int block, cudaStream_t stream) {
  if (n == 0) return;
  const unsigned grid = grid_to_fill(n, block);
  const auto threads = static_cast<unsigned>(block);
  if (work == Work::add) {
    add_kernel<<<grid, threads, 0, stream>>>(a, b, out, n);
    check_launch("add_kernel", grid, threads);
  } else {
    sigmoid_kernel<<<grid, threads, 0, stream>>>(a, out, n);
    check_launch("sigmoid_kernel", grid, threads);
  }
}

// ---------------------------------------------------------------- the pipeline

Pipeline::Pipeline(int streams, int chunks, bool by_engine) : chunks_(chunks) {
  if (streams < 1 || streams > 64 || chunks < 1 || chunks > 4096) {
    throw std::invalid_argument("streams: 1 to 64 streams and 1 to 4096 chunks (asked for " + std::to_string(streams) +
                                " and " + std::to_string(chunks) + ")");
  }
  if (by_engine) {
    streams = 3;
    for (int e = 0; e < 2 * chunks; ++e) steps_.emplace_back(false);
  }
  for (int s = 0; s < streams; ++s) {
    // Non-blocking (common/cuda_handles.hpp): these streams do not wait for the legacy default
    // stream, nor it for them, unless told to (the fork and join events); that is also what lets a
    // graph capture them.
    streams_.emplace_back();
    joins_.emplace_back(false);
  }
}

// [snippet:pipeline]
namespace {

// A run's copies in (a, and b for the add) and its copy out, on `stream`.
void copy_in(Work work, const HostArrays& host, const DeviceArrays& device, cudaStream_t stream) {
  const std::size_t bytes = host.out.size() * sizeof(float);
  GPULAB_CUDA_CHECK(cudaMemcpyAsync(device.a, host.a.data(), bytes, cudaMemcpyHostToDevice, stream));
  if (work == Work::add) {
    GPULAB_CUDA_CHECK(cudaMemcpyAsync(device.b, host.b.data(), bytes, cudaMemcpyHostToDevice, stream));
  }
}
void copy_out(const HostArrays& host, const DeviceArrays& device, cudaStream_t stream) {
  const std::size_t bytes = host.out.size() * sizeof(float);
  GPULAB_CUDA_CHECK(cudaMemcpyAsync(host.out.data(), device.out, bytes, cudaMemcpyDeviceToHost, stream));
}

// Copy in → kernel → copy out on `stream`, in that order; with `marks`, an event before, between
// and after the three (for the timeline). The serial run queues this once over the whole arrays.
void queue_serial(Work work, const HostArrays& host, const DeviceArrays& device, int block, cudaStream_t stream,
                  const Event* marks) {
  auto stamp = [&](int i) {
    if (marks != nullptr) marks[i].record(stream);
  };
  stamp(0);
  copy_in(work, host, device, stream);
  stamp(1);
  compute(work, device.a, device.b, device.out, host.out.size(), block, stream);
  stamp(2);
  copy_out(host, device, stream);
  stamp(3);
}

// Elements [first, first + count) of a run's arrays (b stays empty for σ).
HostArrays piece(const HostArrays& h, std::size_t first, std::size_t count) {
  return {h.a.subspan(first, count), h.b.empty() ? h.b : h.b.subspan(first, count), h.out.subspan(first, count)};
}
DeviceArrays piece(const DeviceArrays& d, std::size_t first) {
  return {d.a + first, d.b == nullptr ? nullptr : d.b + first, d.out + first};
}

}  // namespace

// The pipeline is the serial run, chunk by chunk: chunk c goes to stream c % streams. Within a
// stream the three operations of a chunk run in order; between streams nothing orders them, so
// while stream 1 copies chunk 1 in, stream 0's kernel can run on chunk 0 and, later, stream 2's
// copy out of chunk 2 can run beside both: the GPU has a copy engine each way, and kernels run on
// the multiprocessors. The host memory must be pinned, or cudaMemcpyAsync goes through a staging
// copy and does not overlap.
void Pipeline::queue(Work work, const HostArrays& host, const DeviceArrays& device, int block, bool record) {
  recorded_.clear();
  if (by_engine()) return queue_by_engine(work, host, device, block);
  const std::size_t n = host.out.size();
  const std::size_t chunk = (n + static_cast<std::size_t>(chunks_) - 1) / static_cast<std::size_t>(chunks_);
  for (int c = 0; c < chunks_; ++c) {
    const std::size_t first = static_cast<std::size_t>(c) * chunk;
    if (first >= n) break;
    const int s = c % streams();
    const Event* marks = nullptr;
    if (record) {  // 4 timed events per chunk, and which operation each pair brackets
      const auto needed = 4 * (static_cast<std::size_t>(c) + 1);
      while (marks_.size() < needed) marks_.emplace_back(true);
      marks = &marks_[needed - 4];
      for (auto engine : {Span::Engine::copy_in, Span::Engine::kernel, Span::Engine::copy_out}) {
        recorded_.push_back({s, c, engine});
      }
    }
    queue_serial(work, piece(host, first, std::min(chunk, n - first)), piece(device, first), block,
                 streams_[static_cast<std::size_t>(s)].get(), marks);
  }
}
// [/snippet]

// [snippet:by_engine]
// One stream per engine. With chunk c on stream c % streams, the copies in of several streams are
// queued at once and the copy engine may interleave them, so each chunk's copy in ends later and
// its kernel and copy out start later; here the copies in follow each other on one stream, and a
// chunk's kernel and copy out wait for exactly the step before them (an event each).
void Pipeline::queue_by_engine(Work work, const HostArrays& host, const DeviceArrays& device, int block) {
  const std::size_t n = host.out.size();
  const std::size_t chunk = (n + static_cast<std::size_t>(chunks_) - 1) / static_cast<std::size_t>(chunks_);
  cudaStream_t in = streams_[0].get(), kernels = streams_[1].get(), out = streams_[2].get();
  for (int c = 0; c < chunks_; ++c) {
    const std::size_t first = static_cast<std::size_t>(c) * chunk;
    if (first >= n) break;
    const HostArrays h = piece(host, first, std::min(chunk, n - first));
    const DeviceArrays d = piece(device, first);
    const Event &copied = steps_[2 * static_cast<std::size_t>(c)],
                &computed = steps_[2 * static_cast<std::size_t>(c) + 1];
    copy_in(work, h, d, in);
    copied.record(in);
    GPULAB_CUDA_CHECK(cudaStreamWaitEvent(kernels, copied.get()));
    compute(work, d.a, d.b, d.out, h.out.size(), block, kernels);
    computed.record(kernels);
    GPULAB_CUDA_CHECK(cudaStreamWaitEvent(out, computed.get()));
    copy_out(h, d, out);
  }
}
// [/snippet]

void Pipeline::run(Work work, const HostArrays& host, const DeviceArrays& device, int block, bool record) {
  // The streams start after what the default stream holds, and it continues after all of them.
  fork_.record(cudaStreamLegacy);
  for (const Stream& s : streams_) GPULAB_CUDA_CHECK(cudaStreamWaitEvent(s.get(), fork_.get()));
  queue(work, host, device, block, record);
  for (std::size_t s = 0; s < streams_.size(); ++s) {
    joins_[s].record(streams_[s].get());
    GPULAB_CUDA_CHECK(cudaStreamWaitEvent(cudaStreamLegacy, joins_[s].get()));
  }
}

// [snippet:graph]
// Capturing records each call on the captured streams as a node of a graph instead of running it;
// the fork and join events bring the other streams into the capture of the first. The captured
// graph holds the pointers and sizes, so new arrays mean a new capture.
void Pipeline::run_graph(Work work, const HostArrays& host, const DeviceArrays& device, int block) {
  const void* key[3] = {host.out.data(), device.out, host.a.data()};
  if (!graph_ || work != graph_work_ || !std::equal(key, key + 3, graph_key_)) {
    graph_.reset();
    const cudaStream_t origin = streams_.front().get();
    graph_ = capture_graph(origin, [&] {
      fork_.record(origin);
      for (std::size_t s = 1; s < streams_.size(); ++s)
        GPULAB_CUDA_CHECK(cudaStreamWaitEvent(streams_[s].get(), fork_.get()));
      queue(work, host, device, block, false);
      for (std::size_t s = 1; s < streams_.size(); ++s) {
        joins_[s].record(streams_[s].get());
        GPULAB_CUDA_CHECK(cudaStreamWaitEvent(origin, joins_[s].get()));
      }
    });
    std::copy(key, key + 3, graph_key_);
    graph_work_ = work;
  }
  fork_.record(cudaStreamLegacy);
  GPULAB_CUDA_CHECK(cudaStreamWaitEvent(streams_.front().get(), fork_.get()));
  graph_.launch(streams_.front().get());
  joins_.front().record(streams_.front().get());
  GPULAB_CUDA_CHECK(cudaStreamWaitEvent(cudaStreamLegacy, joins_.front().get()));
}
// [/snippet]

std::vector<Span> Pipeline::timeline() const {
  std::vector<Span> spans = recorded_;
  if (spans.empty()) return spans;
  for (const Stream& s : streams_) GPULAB_CUDA_CHECK(cudaStreamSynchronize(s.get()));
  // Each chunk stamped 4 events: before copy in, between copy in and kernel, between kernel and
  // copy out, after copy out. Times from chunk 0's first; another stream may have started a
  // little earlier, so the earliest start becomes 0.
  double earliest = 0;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const std::size_t base = i / 3 * 4 + i % 3;
    spans[i].start_ms = marks_[base].ms_since(marks_[0]);
    spans[i].end_ms = marks_[base + 1].ms_since(marks_[0]);
    earliest = std::min(earliest, spans[i].start_ms);
  }
  for (Span& span : spans) {
    span.start_ms -= earliest;
    span.end_ms -= earliest;
  }
  return spans;
}

void serial_run(Work work, const HostArrays& host, const DeviceArrays& device, int block, cudaStream_t stream) {
  queue_serial(work, host, device, block, stream, nullptr);
}

std::vector<Span> record_serial(Work work, const HostArrays& host, const DeviceArrays& device, int block) {
  const Event marks[4];  // timed
  queue_serial(work, host, device, block, cudaStreamLegacy, marks);
  GPULAB_CUDA_CHECK(cudaEventSynchronize(marks[3].get()));
  std::vector<Span> spans;
  const Span::Engine engines[3] = {Span::Engine::copy_in, Span::Engine::kernel, Span::Engine::copy_out};
  for (int i = 0; i < 3; ++i)
    spans.push_back({-1, 0, engines[i], marks[i].ms_since(marks[0]), marks[i + 1].ms_since(marks[0])});
  return spans;
}

// ---------------------------------------------------------------- memory per run

RunMemory::RunMemory(Kind kind) : kind_(kind) {
  if (kind_ != Kind::pool) return;
  // [snippet:pool]
  // By default a pool hands freed memory back to the system at the next synchronisation; a
  // release threshold of "everything" keeps it, so the next run's cudaMallocAsync is a lookup.
  int device = 0;
  GPULAB_CUDA_CHECK(cudaGetDevice(&device));
  cudaMemPool_t pool = nullptr;
  GPULAB_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, device));
  std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
  GPULAB_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  // [/snippet]
}

DeviceArrays RunMemory::take(std::size_t n, bool two_inputs) {
  DeviceArrays d;
  const std::size_t bytes = std::max<std::size_t>(n, 1) * sizeof(float);
  for (float** p : {&d.a, &d.b, &d.out}) {
    if (p == &d.b && !two_inputs) continue;
    void* memory = nullptr;
    if (kind_ == Kind::malloc) {
      GPULAB_CUDA_CHECK(cudaMalloc(&memory, bytes));
    } else {
      GPULAB_CUDA_CHECK(cudaMallocAsync(&memory, bytes, cudaStreamLegacy));  // in stream order
    }
    *p = static_cast<float*>(memory);
  }
  return d;
}

void RunMemory::give_back(const DeviceArrays& arrays) {
  for (float* p : {arrays.a, arrays.b, arrays.out}) {
    if (p == nullptr) continue;
    if (kind_ == Kind::malloc) {
      GPULAB_CUDA_CHECK(cudaFree(p));
    } else {
      GPULAB_CUDA_CHECK(cudaFreeAsync(p, cudaStreamLegacy));
    }
  }
}

}  // namespace gpulab::streams
