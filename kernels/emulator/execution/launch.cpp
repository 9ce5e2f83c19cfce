// Emulated launches: the GPU's configuration rules and error messages, then the grid, watched by
// the checked mode (checker.hpp). Like a GPU launch, a launch throws nothing: what went wrong is
// what the next cudaGetLastError() returns, with the emulator's explanation beside CUDA's
// message (error_detail()).
#include <cstdio>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "base/launch_description.hpp"
#include "emulator/execution/scheduler.hpp"
#include "emulator/language/cuda_language.hpp"
#include "emulator/observers/checker.hpp"
#include "emulator/observers/memory_counter.hpp"
#include "emulator/observers/observer.hpp"
#include "emulator/observers/stream_order.hpp"
#include "emulator/runtime/device.hpp"
#include "emulator/runtime/errors.hpp"
#include "emulator/runtime/memory.hpp"

namespace gpulab::emulated {

namespace {

Dims dims(const dim3& d) { return {d.x, d.y, d.z}; }

// Why CUDA would refuse this configuration, or "".
std::string refusal(dim3 grid, dim3 block, std::size_t shared_bytes, std::size_t shared_limit) {
  const DeviceInfo& d = device();
  const unsigned b[3] = {block.x, block.y, block.z};
  const unsigned g[3] = {grid.x, grid.y, grid.z};
  for (int i = 0; i < 3; ++i) {
    if (b[i] == 0 || g[i] == 0) return "a grid or block dimension is 0";
    if (b[i] > static_cast<unsigned>(d.max_block_dim[i])) {
      return "block dimension " + std::to_string(i) + " is over " + std::to_string(d.max_block_dim[i]);
    }
    if (g[i] > static_cast<unsigned>(d.max_grid_dim[i])) {
      return "grid dimension " + std::to_string(i) + " is over " + std::to_string(d.max_grid_dim[i]);
    }
  }
  if (std::size_t{b[0]} * b[1] * b[2] > static_cast<std::size_t>(d.max_threads_per_block)) {
    return "more than " + std::to_string(d.max_threads_per_block) + " threads per block";
  }
  if (shared_bytes > shared_limit) {
    return "more than " + std::to_string(shared_limit) +
           " bytes of dynamic shared memory per block (above 48 KB a kernel must first ask with "
           "cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes))";
  }
  return "";
}

}  // namespace

const DeviceInfo& device() {
  static const DeviceInfo info = [] {
    DeviceInfo d;
    d.available = true;
    d.name = "CPU emulation (" + std::to_string(worker_count()) + " worker threads)";
    d.multiprocessors = static_cast<int>(worker_count());  // one "multiprocessor" per worker
    d.max_threads_per_block = 1024;
    d.max_block_dim[0] = d.max_block_dim[1] = 1024;
    d.max_block_dim[2] = 64;
    d.max_grid_dim[0] = 2147483647;
    d.max_grid_dim[1] = d.max_grid_dim[2] = 65535;
    d.max_threads_per_multiprocessor = 2048;
    d.shared_memory_per_block = 48 * 1024;
    d.warp_size = 32;
    return d;
  }();
  return info;
}

void note_volatile(const char* file, int line) {
  if (!in_kernel()) return;  // host code may use volatile as it likes
  check::note_volatile_kernel();
  static std::mutex mutex;
  static std::set<std::pair<std::string, int>> said;
  std::lock_guard lock(mutex);
  if (!said.insert({file, line}).second) return;
  std::fprintf(stderr,
               "%s:%d: gpulab emulator: warning: this kernel passes values between threads through volatile memory "
               "without __syncwarp() — the warp-synchronous style of CUDA before Volta. It is right only if the 32 "
               "lanes of a warp run in lockstep, which neither Volta and later GPUs nor this emulator promise (here "
               "they run one after another), so its result can be wrong. Put __syncwarp() between the steps, or use "
               "__shfl_down_sync().\n",
               file, line);
}

void detail::launch_threads(const char* kernel, const char* file, int line, ThreadLoops loops, const void* body,
                            dim3 grid, dim3 block, std::size_t shared_bytes, cudaStream_t stream) {
  const DeviceMemoryOpen open;  // under the grader's host guard, the kernel's threads reach it (memory.hpp)
  const auto failed = [&](cudaError_t code, const std::string& why) {
    record_error(code, launch_failure(kernel, dims(grid), dims(block), shared_bytes, file, line,
                                      std::string(error_message(code)) + (why.empty() ? "" : " — " + why)));
  };
  if (in_kernel()) {
    failed(cudaErrorNotSupported, "a launch from inside a kernel (dynamic parallelism) is not emulated");
    return;
  }
  if (const std::string why =
          refusal(grid, block, shared_bytes,
                  std::max(device().shared_memory_per_block, static_cast<std::size_t>(largest_dynamic_shared_limit())));
      !why.empty()) {
    failed(cudaErrorInvalidValue, why);
    return;
  }
  static std::mutex one_launch_at_a_time;
  std::lock_guard lock(one_launch_at_a_time);
  static const bool from_environment = (memory_counter::start_from_environment(), true);
  (void)from_environment;
  // The observers (the checker, and the memory counter and step recorder where they watch) hear of
  // the launch's end however it ends: after its stream work is checked, before its reports are read.
  observe::begin_launch({kernel, block.x * block.y * block.z, shared_bytes});
  struct Ends {
    bool ended = false;
    void now() {
      if (!std::exchange(ended, true)) observe::end_launch();
    }
    ~Ends() { now(); }
  } ends;
  // (The launch's place among the streams' work: what its threads touch is checked against the
  // other streams' unordered work once they are done, before the launch's reports are gathered:
  // stream_order.hpp.)
  const std::string operation = std::string("kernel ") + kernel;
  std::optional<stream_order::Operation> in_stream(std::in_place, stream, operation.c_str(), true);
  try {
    run_blocks(grid, block, shared_bytes, check::launch_level == check::Level::off ? loops.fast : loops.checked, body);
    in_stream.reset();
  } catch (const KernelFault& e) {
    in_stream.reset();
    ends.now();
    failed(e.code, e.what());
    return;
  } catch (const std::exception& e) {
    in_stream.reset();
    ends.now();
    failed(cudaErrorLaunchFailure, e.what());
    return;
  }
  // Races, uninitialised reads and barrier errors let the kernel run on. In GPU Lab's own runs the
  // launch fails with the first of them, so a lesson's row or a grade says what was found; a whole
  // program goes on, as under compute-sanitizer, and exits non-zero at its end.
  ends.now();
  if (const std::string reports = check::launch_reports(); !reports.empty() && !check::launches_go_on()) {
    failed(cudaErrorLaunchFailure, reports);
  }
}

}  // namespace gpulab::emulated
