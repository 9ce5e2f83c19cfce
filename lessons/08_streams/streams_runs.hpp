#pragma once
// Lesson 08's data and what a run does to it, for the CPU runs (streams_lesson.cpp) and the GPU's
// (streams_gpu.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "common/lesson.hpp"
#include "common/timeline.hpp"
#include "common/verify.hpp"

namespace gpulab::streams_runs {

enum class Workload { add, sigmoid };

struct StreamsInstance : Instance {
  std::int64_t n = 0;
  int chunks = 0, streams = 0;
  std::vector<float> a, b;
  std::vector<double> sum, sigmoid;  // the float64 references: a + b and σ(a)
  const std::vector<double>& expected(Workload w) const { return w == Workload::add ? sum : sigmoid; }
};

// a + b is exact up to the one rounding of the float sum; σ as in lesson 04 (expf within 2 ulp).
inline Tolerance tolerance_of(Workload w) { return w == Workload::add ? Tolerance{1e-7, 0} : Tolerance{1e-6, 1e-30}; }
inline const char* topic(Workload w) { return w == Workload::add ? "vector add" : "sigmoid"; }

// How a GPU run moves its data.
enum class Mode {
  pageable,  // copy in, kernel, copy out, one after the other, host memory from the heap
  pinned,    // the same from page-locked memory
  overlap,   // chunks over streams: copies and kernels at the same time
  graph,     // the overlap's operations captured once as a CUDA graph
  engines,   // the overlap's chunks over one stream per engine (copies in, kernels, copies out)
  malloc,    // pinned, with cudaMalloc and cudaFree of the device arrays inside every run
  pool,      // pinned, with cudaMallocAsync and cudaFreeAsync from a memory pool
};

// A GPU run of a workload moved the way `mode` says (a RunFactory's work, GPU only: on the
// emulator it says what it needs).
std::unique_ptr<Run> gpu_run(const StreamsInstance& in, const RunOptions& options, Workload work, Mode mode,
                             const std::string& name);

// The timeline of one overlapped run beside the serial run of the same work, recorded on the GPU.
Timeline record_timeline(const StreamsInstance& in, Workload work, const std::string& name, int block);

}  // namespace gpulab::streams_runs
