#pragma once
// Lesson 08: moving data to and from the GPU while it computes (GPU builds only). Two workloads,
// c = a + b and y = σ(x), run as copy in → kernel → copy out, either once over the whole array or
// chunk by chunk over several streams so that one chunk's copies overlap another's kernel; the
// same chunks captured once in a CUDA graph; device memory from cudaMalloc or a stream-ordered
// pool. Host spans are pinned memory unless said otherwise; device pointers are device memory.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "common/cuda_handles.hpp"

namespace gpulab::gpu::streams {

enum class Work { add, sigmoid };  // c = a + b (two inputs), y = σ(a) (one: b is empty)

// The kernel over n elements on `stream` (a grid-stride loop, `block` threads per block).
void compute(Work work, const float* a, const float* b, float* out, std::size_t n, int block, cudaStream_t stream);

// What one operation of a recorded run did: on which stream, which chunk, which engine, when
// (milliseconds from the run's first event).
struct Span {
  int stream = 0, chunk = 0;
  enum class Engine { copy_in, kernel, copy_out } engine = Engine::kernel;
  double start_ms = 0, end_ms = 0;
};
const char* to_string(Span::Engine e);

// Host arrays and device arrays of one run; b empty (nullptr) for σ.
struct HostArrays {
  std::span<const float> a, b;
  std::span<float> out;
};
struct DeviceArrays {
  float *a = nullptr, *b = nullptr, *out = nullptr;
};

// `chunks` pieces of the arrays, chunk c on stream c % streams, each queued as copy in → kernel →
// copy out. The streams do not wait for the legacy default stream, so run() makes them wait for
// what was queued there before and makes it wait for them after: events recorded on the default
// stream around run() time the whole pipeline.
// With `by_engine`, three streams instead, one per engine: every copy in on the first, every
// kernel on the second, every copy out on the third, each operation waiting (an event) for its
// chunk's step before it — so each engine takes the chunks in order.
class Pipeline {
 public:
  Pipeline(int streams, int chunks, bool by_engine = false);
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  int streams() const { return static_cast<int>(streams_.size()); }
  int chunks() const { return chunks_; }
  bool by_engine() const { return !steps_.empty(); }
  // Queues the chunks; with `record` (not by engine), an event before and after each operation,
  // read by timeline().
  void run(Work work, const HostArrays& host, const DeviceArrays& device, int block, bool record = false);
  // The same chunks captured once in a CUDA graph (on the first call with these arrays) and
  // launched as one: the host issues one call instead of 3 per chunk.
  void run_graph(Work work, const HostArrays& host, const DeviceArrays& device, int block);
  // After a recorded run: its operations, once they have finished (waits for them).
  std::vector<Span> timeline() const;

 private:
  void queue(Work work, const HostArrays& host, const DeviceArrays& device, int block, bool record);
  void queue_by_engine(Work work, const HostArrays& host, const DeviceArrays& device, int block);

  std::vector<Stream> streams_;
  int chunks_;
  Event fork_{false};           // the default stream's point the streams start from
  std::vector<Event> joins_;    // each stream's end, for the default stream to wait on
  std::vector<Event> steps_;    // by engine: each chunk's copy in done, its kernel done
  std::vector<Event> marks_;    // recorded runs: start and end of each operation (timed)
  std::vector<Span> recorded_;  // which operation each pair of marks belongs to
  GraphExec graph_;             // (destroyed first, before the streams it was captured on)
  const void* graph_key_[3] = {nullptr, nullptr, nullptr};
  Work graph_work_ = Work::add;
};

// Copy in → kernel → copy out over the whole arrays, in order on `stream` (host memory pinned).
void serial_run(Work work, const HostArrays& host, const DeviceArrays& device, int block, cudaStream_t stream);

// The serial run, copy in → kernel → copy out on the default stream, recorded like a pipeline's
// (stream -1, chunk 0): the timeline's comparison. Waits for it to finish.
std::vector<Span> record_serial(Work work, const HostArrays& host, const DeviceArrays& device, int block);

// Device memory for one run's arrays, taken and given back inside the run: with cudaMalloc and
// cudaFree (each a device-wide synchronisation, slow) or with cudaMallocAsync and cudaFreeAsync
// from the device's default memory pool, which keeps what was freed for the next run.
class RunMemory {
 public:
  enum class Kind { malloc, pool };
  explicit RunMemory(Kind kind);
  DeviceArrays take(std::size_t n, bool two_inputs);
  void give_back(const DeviceArrays& arrays);

 private:
  Kind kind_;
};

}  // namespace gpulab::gpu::streams
