#pragma once
// What the emulator's CUDA runtime (runtime_api.cpp: errors, the device, memory) shares with its
// streams and events (runtime_streams.cpp). Internal to the emulator.
#include <chrono>
#include <string>

#include "emulator/runtime/runtime_api.hpp"

// The emulator's stream and event objects.
namespace gpulab::emulated::types {
struct CUstream_st {
  unsigned int flags = 0;
};
struct CUevent_st {
  bool recorded = false;
  bool timing = true;
  std::chrono::steady_clock::time_point when;
  CUstream_st* stream = nullptr;  // where it was last recorded
};
}  // namespace gpulab::emulated::types

namespace gpulab::emulated::runtime_internal {

// A fault of a kernel that ran (not a refused launch): what a GPU's next synchronising call
// returns too, so a program that checks only its cudaMemcpy or cudaDeviceSynchronize sees it.
cudaError_t pending_fault();

// A runtime call that fails: recorded as the last error (and said on stderr in a learner's
// program, as compute-sanitizer reports a failed API call); returns `code`.
cudaError_t fail(cudaError_t code, std::string detail);

// The copies to host memory queued with cudaMemcpyAsync on `stream` and not yet waited for
// (runtime_streams.cpp): one more; the host waited for the stream (the legacy default stream:
// for every blocking stream's work); for everything.
void queued_to_host(const void* stream);
void waited_for(const void* stream);
void waited_for_all();

}  // namespace gpulab::emulated::runtime_internal
