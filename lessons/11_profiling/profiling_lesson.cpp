// Lesson 11, profiling: Nsight Compute and Nsight Systems on kernels the learner already knows.
// Its workload is lesson 03's matrix add — the pair a profiler tells apart best (the coalesced
// mapping and the transposed one) — so this file adds no kernel and no workload of its own: the
// lesson is its text (docs/lessons/11-profiling.md), the memory counts the emulator makes of those
// kernels, and the profiles recorded on an H100 (assets/profiles/) the app's Memory view shows.
#include "problems/matrix_add/matrix_add_workload.hpp"

namespace gpulab {

namespace {

Lesson make_lesson() {
  Lesson l = matrix_add_workload();  // the workload, its checks and its thread map: lesson 03's
  l.title = "Profiling";
  l.summary =
      "Nsight Compute and Nsight Systems on the lessons' kernels: memory throughput, occupancy, stall "
      "reasons, and how they meet GPU Lab's own GB/s";
  l.sources = {"kernels/matrix_add/matrix_add.cu", "tools/record-profiles.py", "tools/compare-memory.py"};
  // Its Memory view reads the profiles recorded for every lesson's kernels, not only its own.
  l.reads_every_profile = true;
  // The two mappings a profile tells apart, and the CPU's loop for the baseline.
  std::erase_if(l.variants, [](const Variant& v) {
    return v.name != "cpu_row_order" && v.name != "coalesced" && v.name != "transposed";
  });
  return l;
}

}  // namespace

// Lesson 11: profiling lesson 03's two mappings (and, in the text, lesson 05's ladder).
const Lesson& profiling_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
