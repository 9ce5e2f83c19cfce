// What a lesson executable prints besides its table: cli_print.hpp.
#include "common/cli_print.hpp"

#include <fmt/format.h>

#include "common/memory_check.hpp"
#include "common/peaks.hpp"
#include "common/version.hpp"
#include "emulator/observers/memory_counter.hpp"
#include "emulator/runtime/device.hpp"

namespace gpulab {

std::string limits_text(const DeviceInfo& d) {
  return fmt::format(
      "{} threads per block, blocks up to {} x {} x {}, grids up to {} x {} x {}, {} KB shared memory per block, {} "
      "threads per multiprocessor, warps of {}",
      d.max_threads_per_block, d.max_block_dim[0], d.max_block_dim[1], d.max_block_dim[2], d.max_grid_dim[0],
      d.max_grid_dim[1], d.max_grid_dim[2], d.shared_memory_per_block / 1024, d.max_threads_per_multiprocessor,
      d.warp_size);
}

void print_header(std::FILE* out, const Lesson& lesson, const DeviceInfo& device, bool gpu_runs, bool emulated_runs,
                  std::uint64_t seed) {
  fmt::print(out, "GPU Lab {} — lesson {}: {}\n", version(), lesson.id, lesson.title);
  if (device.available) {
    fmt::print(out, "GPU: {} (compute capability {}, {} SMs, {} memory), driver {}, runtime {}\n", device.name,
               device.compute_capability(), device.multiprocessors,
               format_bytes(static_cast<double>(device.total_memory)), device.driver_string(), device.runtime_string());
    fmt::print(out, "Limits (from the device's properties): {}\n", limits_text(device));
    if (gpu_runs) {
      if (const auto peaks = measured_peaks()) {
        fmt::print(out, "Measured copy bandwidth (device to device, {}): {:.0f} GB/s\n",
                   format_bytes(peaks->copy_bytes), peaks->copy_gbps);
        fmt::print(out, "Measured FP32 peak (fused multiply-adds on registers): {:.0f} GFLOP/s\n", peaks->fp32_gflops);
      }
    }
  } else {
    fmt::print(out, "GPU: none ({})\n", device.reason);
  }
  if (emulated_runs) {
    fmt::print(out,
               "Emulated: {}; each row's first run is checked (compute-sanitizer's checks) and checks the answer, "
               "its timed runs are the fast path (no checks): 'emulated (CPU, fast)' rows are CPU times, not GPU "
               "times\n",
               emulated::device().name);
    if (!device.available) fmt::print(out, "Emulated limits: {}\n", limits_text(emulated::device()));
  }
  fmt::print(out, "Inputs: seed {} (replay with --seed {})\n\n", seed, seed);
}

void print_memory_report(std::FILE* out, const std::vector<Result>& results) {
  fmt::print(out,
             "\nMemory, counted on the emulator at every access of every thread (Nsight Compute's "
             "l1tex__t_requests/t_sectors_pipe_lsu_mem_global_op_ld/st, smsp__inst_executed_op_shared_ld/st and "
             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/st on a GPU); a sector is 32 bytes, a warp "
             "reading 32 consecutive floats needs 4:\n");
  for (const Result& r : results) {
    if (r.backend != Backend::emulated || r.memory.empty()) continue;
    fmt::print(out, "{} ({}):\n{}", r.variant, problem_label(r.problem),
               emulated::memory_counter::format_report(r.memory));
  }
}

}  // namespace gpulab
