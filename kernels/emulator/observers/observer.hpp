#pragma once
// The one seam between the emulator's execution and what watches it. The checker (checker.hpp),
// the memory counter (memory_counter.hpp) and the shared-memory step recorder (shared_steps.hpp)
// each implement Observer; execution (launch.cpp, scheduler.cpp) tells them of a launch, a
// barrier, a warp's exchange and a block's end through the functions below and names none of them.
//
// Accesses take one road: the instrumentation (sanitizer_hooks.cpp) hands every access to the
// checker, the observer in front — the one that sees an access *before* it happens and may stop
// the thread (a wild address) — and the checker hands each access it lets through to the observers
// behind it that watch the launch. So a launch watched by any of them runs at least memcheck.
#include <cstdint>

namespace gpulab::emulated::observe {

struct LaunchShape {
  const char* kernel;
  unsigned threads_per_block;
  std::uint64_t dynamic_shared_bytes;
};

// One access of the running kernel thread, in bounds, about to happen.
struct MemoryAccess {
  std::uintptr_t address;
  unsigned size;
  bool write;   // a store, or an atomic
  bool atomic;  // (a read and a write at once; a profiler counts them apart)
  bool shared;  // in the block's shared memory; else device memory
  const void* pc;
};

class Observer {
 public:
  virtual ~Observer() = default;
  // Whether it watches the launch about to begin: asked once a launch, before begin_launch; an
  // observer that does not hears nothing of that launch.
  virtual bool watches() const = 0;
  virtual void begin_launch(const LaunchShape& launch) = 0;
  // (Called on the worker running the block, for the observers behind the checker.)
  virtual void access(const MemoryAccess&) {}
  // A warp operation (a shuffle, a vote) completed by its last lane: the 32 slots the lanes filled.
  virtual void warp_exchange(unsigned /*warp*/, const std::uint64_t* /*slots*/, unsigned /*lanes*/) {}
  // The block's barrier fell (by its last arrival); file and line of the __syncthreads(), or
  // nullptr for a __syncthreads_count/and/or.
  virtual void barrier(const char* /*file*/, int /*line*/) {}
  // The running worker's block ended (however it ended).
  virtual void end_block() {}
  virtual void end_launch() {}
};

// What execution calls. One launch runs at a time.
void begin_launch(const LaunchShape& launch);
void end_launch();
void end_block();
void barrier(const char* file, int line);
void warp_exchange(unsigned warp, const std::uint64_t* slots, unsigned lanes);

// The observers behind the checker that watch the running launch (read inline: the checker asks
// after every access it lets through).
extern unsigned watching_behind;
void hand_on(const MemoryAccess& access);
// What the checker calls after an access it let through.
inline void access(const MemoryAccess& access) {
  if (watching_behind != 0) hand_on(access);
}

}  // namespace gpulab::emulated::observe
