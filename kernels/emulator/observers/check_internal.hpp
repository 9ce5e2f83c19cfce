#pragma once
// What the checker's two files share (checker.cpp: the checks on the access path;
// check_reports.cpp: what the checks say). Internal to the checked mode.
//
// Racecheck's record of an access (a GlobalCell's or shared::Cell's `writer`/`reader` word):
//   bits 44-63 the launch's number, 14-43 the block's, 4-13 the thread's, 0-3 which of the
//   granule's 4 bytes it touched (so it is never 0; kHostWriter is launch 0, all bytes).
// and its `sync` word: the block's barrier count then (high half), the warp's __syncwarp count
// (low half); bit 63 of a reader's marks several readers in one barrier interval.
// A GlobalCell (a granule of device memory; global_records.hpp keeps them packed) packs them tighter. Its `writer`:
// bits 48-63 the writing instruction's number (pc_id), 38-47 the launch's tag (1 to 1023: the launch number's remainder
// by 1023, plus 1; when the tags come round, every buffer's records of earlier launches are cleared:
// forget_launch_tags), 14-37 the block's number's low 24 bits, 0-13 as above; its `sync` word is the barrier count's
// low 20 bits and the __syncwarp count's low 12; its `reader` is the last block that read it in its launch: the
// launch's tag in bits 22-31, the block's number's low 15 bits below. Two accesses of one byte by different threads of
// a block are ordered when a barrier opened between them, or, in one warp, a __syncwarp(); of different blocks (global
// memory), never.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "emulator/execution/shared_memory.hpp"
#include "emulator/language/cuda_language.hpp"
#include "emulator/observers/checker.hpp"
#include "emulator/runtime/memory.hpp"

namespace gpulab::emulated::check::internal {

constexpr std::uint64_t kManyReaders = std::uint64_t{1} << 63;

struct State {
  std::mutex mutex;
  std::atomic<std::uint32_t> launch{0};
  std::string kernel;
  std::string first_report;   // of the running launch
  std::string later_reports;  // its others, kept where reports are not written at once
  std::size_t later_count = 0;
  std::map<std::string, std::size_t> seen;  // report keys of the running launch, and repeats
  std::size_t errors[4] = {0, 0, 0, 0};     // by tool, over the process
  bool volatile_kernel = false;
  std::atomic<bool> launch_used_atomics{false};
  std::mutex places_mutex;
  std::map<const void*, std::string> places;  // symbolised instructions
};

State& state();
const char* tool_name(Tool t);
std::string hex(std::uintptr_t v);
std::string dims(const uint3& d);

// The thread with number `linear` in the running block, as (x,y,z).
inline uint3 thread_index(unsigned linear) {
  const dim3 d = detail::current_block->block_dim;
  return {linear % d.x, linear / d.x % d.y, linear / (d.x * d.y)};
}

// ---- the records

inline std::uint64_t record(unsigned thread, unsigned bytes) {
  const detail::BlockContext& b = *detail::current_block;
  return std::uint64_t{b.launch & 0xFFFFFu} << 44 | (b.linear & 0x3FFFFFFFu) << 14 |
         std::uint64_t{thread & 0x3FFu} << 4 | bytes;
}
inline unsigned launch_of(std::uint64_t r) { return static_cast<unsigned>(r >> 44); }
inline std::uint64_t block_of(std::uint64_t r) { return r >> 14 & 0x3FFFFFFFu; }
inline unsigned thread_of(std::uint64_t r) { return static_cast<unsigned>(r >> 4 & 0x3FFu); }
inline unsigned bytes_of(std::uint64_t r) { return static_cast<unsigned>(r & 0xFu); }

inline std::uint32_t pack_sync(std::uint64_t sync) {
  return static_cast<std::uint32_t>((sync >> 32 & 0xFFFFFu) << 12 | (sync & 0xFFFu));
}
inline std::uint64_t unpack_sync(std::uint32_t packed) { return std::uint64_t{packed >> 12} << 32 | (packed & 0xFFFu); }
inline std::uint32_t launch_tag(std::uint32_t launch) { return launch % 1023 + 1; }

// A GlobalCell's writer word (from a record, the launch's tag and the instruction's number), and
// the record it stands for (the launch as its tag, the block's low 24 bits): what order() compares
// with the access now, made the same way.
inline std::uint64_t global_writer(std::uint64_t record, std::uint32_t tag, std::uint16_t instruction) {
  return std::uint64_t{instruction} << 48 | std::uint64_t{tag} << 38 | (block_of(record) & 0xFFFFFFu) << 14 |
         (record & 0x3FFFu);
}
inline std::uint64_t as_record(std::uint64_t writer) {
  return (writer >> 38 & 0x3FFu) << 44 | (writer >> 14 & 0xFFFFFFu) << 14 | (writer & 0x3FFFu);
}

inline bool writes(Access kind) {
  return kind == Access::write || kind == Access::volatile_write || kind == Access::atomic;
}

enum class Order { none, same_thread, ordered, other_block, racing };

// How an earlier access `before` (with its sync word) stands to the running thread's access of
// the bytes `bytes` now.
inline Order order(std::uint64_t before, std::uint64_t before_sync, unsigned bytes, std::uint64_t now,
                   std::uint64_t now_sync) {
  if (before == 0 || launch_of(before) != launch_of(now) || (bytes_of(before) & bytes) == 0) return Order::none;
  if (block_of(before) != block_of(now)) return Order::other_block;
  const unsigned t0 = thread_of(before), t1 = thread_of(now);
  if ((before_sync & ~kManyReaders) >> 32 != now_sync >> 32) return Order::ordered;  // a barrier since
  if (t0 / 32 == t1 / 32 && (before_sync & 0xFFFFFFFFu) != (now_sync & 0xFFFFFFFFu)) return Order::ordered;
  return t0 == t1 ? Order::same_thread : Order::racing;
}

// ---- what an address is, in a report's words (check_reports.cpp)

std::string element_words(std::size_t count, std::size_t element_bytes, const std::string& type);
// "'tile' (32 × 32 × float)" for a static shared array.
std::string describe_shared(const shared::Window& w, const shared::Array& a);
std::size_t element_bytes_of(const shared::Window& w, const shared::Array& a);
// Where `address` lies relative to a buffer [begin, begin + bytes) of elements of `element`
// bytes: "element 1030 of X, 6 elements past its end".
std::string relative(std::uintptr_t address, std::uintptr_t begin, std::size_t bytes, std::size_t element,
                     const std::string& what);
std::string allocated_at(const Allocation& a);
std::string access_line(const char* space, bool write, std::size_t size, const void* pc);
// A memcheck report that stops the running thread (its launch fails with `code`).
[[noreturn]] void fatal(cudaError_t code, const std::string& key, const std::string& text);

// ---- the reports the access path makes (check_reports.cpp), out of the way of its fast path

// The bytes of one granule an access is about to write over another thread's write (size 0: not
// a write over a write; see racecheck_report).
struct Granule {
  std::uintptr_t address = 0;
  unsigned size = 0;
};
// Reports of writes over other threads' writes wait until the write is done (settle_writes).
extern thread_local constinit bool races_pending;
void settle_writes();

[[noreturn, gnu::noinline, gnu::cold]] void out_of_bounds(std::uintptr_t a, std::size_t size, Access kind,
                                                          const void* pc);
[[noreturn, gnu::noinline, gnu::cold]] void shared_out_of_bounds(const shared::Window& w, std::uintptr_t a,
                                                                 std::size_t size, Access kind, const void* pc);
[[noreturn, gnu::noinline, gnu::cold]] void misaligned(std::uintptr_t a, std::size_t size, Access kind, bool device,
                                                       const void* pc, std::size_t align);
[[gnu::noinline, gnu::cold]] void uninitialised_read(const Allocation& alloc, std::uintptr_t address, std::size_t size,
                                                     bool atomic, const void* pc);
// A race in device memory found by the record of the running launch (within a block, or between blocks).
[[gnu::noinline, gnu::cold]] void global_race(const Allocation& alloc, std::uintptr_t address, unsigned size, Order o,
                                              bool write, bool warp_synchronous, std::uint64_t writer,
                                              std::uint64_t where, std::uint64_t now, const void* pc);
// A write after another block's read of the running launch.
[[gnu::noinline, gnu::cold]] void war_between_blocks(const Allocation& alloc, std::uintptr_t address, unsigned size,
                                                     std::uint32_t reader, const void* pc);
// (several: the earlier access is one of several reads in the interval, some by other threads;
// warp_synchronous: the access now is through volatile memory.)
[[gnu::noinline, gnu::cold]] void shared_race(const shared::Window& w, const shared::Array& array,
                                              const Granule& granule, const char* kind, std::uint64_t before,
                                              std::uint64_t before_where, std::uint64_t now, const void* pc,
                                              bool several, bool warp_synchronous);

// The summary of the errors found, as the process exits (registered at the first launch).
void at_exit();

// The launch's reports as its error: its first in full, then what followed (check_reports.cpp).
std::string gather_reports();

}  // namespace gpulab::emulated::check::internal
