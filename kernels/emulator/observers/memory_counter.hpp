#pragma once
// Counting what Nsight Compute counts, without a GPU. The checked mode sees every access of every
// thread before it happens (checker.hpp); while counting, each in-bounds access to global or shared
// memory is also written down with its instruction. When a block ends, its accesses are grouped
// into warp requests — the lanes of one warp that ran the same instruction for the same time (the
// k-th time each of them ran it since the warp's last barrier or __syncwarp()) — and each request
// is costed as the hardware costs it:
// - global: the distinct 32-byte sectors its lanes' bytes fall in (4 for 32 consecutive floats,
//   32 for 32 floats a row apart; cp.async's 16-byte copies by pairs of lanes, async_copy_sectors);
// - shared: the wavefronts the 32 banks (4-byte words, bank = word % 32) need: the most distinct
//   words any one bank must deliver (lanes reading the same word share it: a broadcast), phase by
//   phase for 8- and 16-byte accesses (16 and 8 lanes at a time; see shared_wavefronts()).
// Atomics and local memory are not counted. Launches run one at a time, so counts are per launch.
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "emulator/observers/memory_counts.hpp"
#include "emulator/observers/observer.hpp"

namespace gpulab::emulated::memory_counter {

// Starts counting the launches that follow; `per_warp`: keep each warp's global requests and
// sectors too (for launches of at most 64 K warps).
void start(bool per_warp = false);
// (A flag read inline: the checks ask before every access.)
extern std::atomic<bool> active;
inline bool counting() { return active.load(std::memory_order_relaxed); }
// Stops, and gives each kernel's counts (launches of one kernel added up), in launch order.
std::vector<KernelTraffic> stop();

// The counter as an observer of launches (observer.hpp): it watches while counting, and writes
// down each in-bounds access but atomics; a block's end costs its accesses, a launch's end adds
// them to its kernel's counts.
observe::Observer& observer();
// cp.async (cuda_pipeline.h): the running thread's next global load is an asynchronous copy's,
// which Nsight Compute counts its own way (memory_counter.cpp, async_copy_sectors).
void next_load_is_async_copy();

// A program built whole (gpulab_run): with GPULAB_MEMORY_REPORT=1 in the environment it counts
// from its first launch and prints the report to stderr when it exits.
void start_from_environment();

// The report people read: per kernel, each kind of access with Nsight Compute's metric beside it,
// then the lines that cost most.
std::string format_report(const std::vector<KernelTraffic>& kernels, int lines = 5);
// "1,048,576": counts as the report and the app print them.
std::string thousands(std::uint64_t count);

}  // namespace gpulab::emulated::memory_counter
