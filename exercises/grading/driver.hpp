#pragma once
// The program the grader builds around a learner's file: a main that reads the grader's inputs
// for one case, copies them into device memory, fills the outputs with poison, calls the
// learner's entry point and writes back what it left in the outputs. It runs in a process of its
// own for every case, so nothing the learner's code does can take the grader down.
//
// The files it reads and writes (native byte order):
//   in:  int64 warmup, int64 reps; then per parameter in the entry point's order a number (a
//        double, converted to the parameter's type) or an array (int64 length, then, for the
//        arrays the entry point reads, the elements in the parameter's own type).
//   out: per written array its elements after the first call; then, when reps > 0, per written
//        array its elements after the last timed call, and per timed call four doubles: the
//        milliseconds of the copies in, of the call, of the copies out, and end to end — timed
//        as every lesson row is (lessons/common/phase_times.hpp, event_clock.hpp).
// A CUDA error ends it with exit status 3 and a line on stderr that starts with kCudaErrorTag.
#include <string>

#include "grading/spec.hpp"

namespace gpulab::grading {

inline constexpr const char* kCudaErrorTag = "GPULAB-CUDA-ERROR";
// On the emulator: the learner's function returned with copies to host memory still queued.
inline constexpr const char* kUnfinishedTag = "GPULAB-UNFINISHED";
// On the emulator: an output the host computed ("TAG name percent-handed-over host-written-bytes").
inline constexpr const char* kHostWorkTag = "GPULAB-HOST-WORK";
// On the emulator, with GPULAB_GRADE_COUNTS set: the memory counts of the learner's launches
// ("TAG" then requests, units, ideal units and bytes for global loads, global stores, shared
// loads and shared stores).
inline constexpr const char* kCountsTag = "GPULAB-COUNTS";
inline constexpr int kDriverCudaError = 3;

// The driver's source, for the spec's entry point. Compiled by nvcc for the GPU, or by the host
// compiler against the emulator's CUDA runtime.
std::string driver_source(const Spec& spec);

}  // namespace gpulab::grading
