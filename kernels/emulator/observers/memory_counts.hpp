#pragma once
// What the emulator counts of a kernel's memory accesses, in Nsight Compute's terms (see
// memory_counter.hpp for how): plain data, which the results, the report and the app carry.
//
//   global loads/stores  requests: warp-level instructions (l1tex__t_requests_pipe_lsu_mem_global_op_ld/st)
//                        sectors: the 32-byte sectors each request touches (l1tex__t_sectors_..._ld/st)
//   shared loads/stores  requests: warp-level instructions (smsp__inst_executed_op_shared_ld/st)
//                        wavefronts: passes the 32 banks need (l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld/st);
//                        bank conflicts are the wavefronts beyond the fewest the bytes need
//                        (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/st)
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gpulab::emulated {

enum class MemoryKind { global_load, global_store, shared_load, shared_store };
inline constexpr int kMemoryKinds = 4;
inline bool is_shared(MemoryKind k) { return k == MemoryKind::shared_load || k == MemoryKind::shared_store; }
const char* to_string(MemoryKind kind);  // "global loads"

// Shared memory serves a warp's request in phases of at most 128 bytes: all 32 lanes at once for
// 4-byte accesses, 16 at a time for 8-byte ones, 8 for 16-byte ones.
inline unsigned lanes_per_shared_phase(unsigned bytes_per_lane) {
  return bytes_per_lane <= 4 ? 32 : bytes_per_lane <= 8 ? 16 : 8;
}

// One kind of access of one kernel (or one source line of it).
struct Traffic {
  std::uint64_t requests = 0;  // warp-level instructions
  std::uint64_t units = 0;     // global: 32-byte sectors touched; shared: wavefronts
  std::uint64_t ideal = 0;     // the fewest units the bytes asked for could take
  std::uint64_t bytes = 0;     // bytes the threads asked for
  double per_request() const { return requests == 0 ? 0 : static_cast<double>(units) / static_cast<double>(requests); }
  // 100 %: every sector fetched is used, or every wavefront is needed.
  double efficiency() const { return units == 0 ? 1 : static_cast<double>(ideal) / static_cast<double>(units); }
  std::uint64_t conflicts() const { return units > ideal ? units - ideal : 0; }  // shared: extra wavefronts
  Traffic& operator+=(const Traffic& o) {
    requests += o.requests, units += o.units, ideal += o.ideal, bytes += o.bytes;
    return *this;
  }
};

// One warp's request, as it reached memory: each lane's address relative to a 128-byte boundary at
// or below the request's lowest (so offset / 32 is its sector, offset / 4 % 32 its bank), or -1 for
// a lane that took no part.
struct WarpRequest {
  int bytes_per_lane = 0;
  std::array<std::int64_t, 32> offset{};
  std::uint64_t units = 0;  // sectors or wavefronts
};

// A source line's accesses of one kind, with its costliest request (for the pictures).
struct LineTraffic {
  std::string place;  // "kernels/matmul/matmul.cu:42"
  MemoryKind kind = MemoryKind::global_load;
  Traffic traffic;
  WarpRequest worst;
};

// One warp's global requests and sectors (the thread map's colours), for small launches.
struct WarpTraffic {
  std::uint64_t block = 0;  // the block's number in the grid (x fastest)
  unsigned warp = 0;
  std::uint64_t requests = 0, sectors = 0;
};

struct KernelTraffic {
  std::string kernel;
  std::uint64_t launches = 0;
  // Its first launch's configuration: threads per block, and the shared memory each block had.
  unsigned threads_per_block = 0;
  std::uint64_t static_shared_bytes = 0, dynamic_shared_bytes = 0;
  std::array<Traffic, kMemoryKinds> traffic{};
  std::vector<LineTraffic> lines;  // costliest first
  std::vector<WarpTraffic> warps;  // when asked for, and only the first launch's
  const Traffic& of(MemoryKind k) const { return traffic[static_cast<int>(k)]; }
  // Bytes global memory served the SMs: every sector counted is 32 bytes through L1.
  double sector_bytes() const {
    return 32.0 * static_cast<double>(of(MemoryKind::global_load).units + of(MemoryKind::global_store).units);
  }
};

}  // namespace gpulab::emulated
