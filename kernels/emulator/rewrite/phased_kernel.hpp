#pragma once
// The rewrite's second body for a kernel whose barriers it can see: the same code as a coroutine
// that suspends at each `__syncthreads();`, which the emulator's fast path runs phase by phase
// (execution/phases.hpp) instead of a fiber a thread. The kernel becomes
//
//   __global__ void k(params) {
//   #line N "file"
//   if (phases_on) { run_phased([=](auto) mutable -> PhasedThread { BODY, barriers co_awaited,
//                                                               return as co_return }); return; }
//   #line N "file"
//   BODY }
//
// each copy on the lines of the original (so a message about either names the learner's line),
// the first built without ThreadSanitizer's instrumentation (the fast path's), the second as
// before (the checked mode's, on fibers). Internal to the emulator's build tools.
#include <cstddef>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace gpulab::emulated::jobs {

// Why the kernel body {…} at [open, close) cannot run in phases ("" when it can): it must have a `__syncthreads();` of
// its own, and nothing the phases could not see or a coroutine cannot hold — no other barrier or
// warp operation, no call but to the device language's arithmetic, atomics and conversions (a
// function of the learner's might wait at a barrier inside), no member call, lambda, asm, goto
// or try. Everything else runs on fibers, as before. `plain`: the file's own device functions it may
// call (plain_device_functions).
std::string why_not_phased(const std::string& s, const std::vector<bool>& code, std::size_t open, std::size_t close,
                           const std::set<std::string, std::less<>>& plain);
// The file's own __device__ functions that reach no barrier or warp operation: those whose every
// body calls nothing but the arithmetic above and each other.
std::set<std::string, std::less<>> plain_device_functions(const std::string& s, const std::vector<bool>& code);

// The marks the kernel-definition job leaves at such a body's ends (after its `{`, before its
// `}`; the first with the line of the `{`), and the pass over the rewritten file that puts the
// phased copy at each first mark, from the rewritten text between the two.
std::string phased_begin_mark(int line);
inline constexpr const char* kPhasedEndMark = "/*gpulab:phased}*/";
std::string add_phased_copies(const std::string& rewritten, const std::string& file);

}  // namespace gpulab::emulated::jobs
