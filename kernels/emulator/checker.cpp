// The checks behind every access of an instrumented kernel (see checker.hpp).
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
#include "emulator/checker.hpp"

#include <dlfcn.h>

#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "emulator/emulator.hpp"
#include "emulator/global_records.hpp"
#include "emulator/memory.hpp"
#include "emulator/memory_counter.hpp"
#include "emulator/runtime.hpp"
#include "emulator/shared_memory.hpp"
#include "emulator/shared_steps.hpp"
#include "emulator/stream_order.hpp"

namespace gpulab::emulated {

namespace check {

namespace {

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

State& state() {
  static State* s = new State;  // never destroyed: exit-time reports still use it
  return *s;
}

const char* tool_name(Tool t) {
  static const char* const names[] = {"memcheck", "racecheck", "initcheck", "synccheck"};
  return names[static_cast<int>(t)];
}

std::string hex(std::uintptr_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%lx", static_cast<unsigned long>(v));
  return text;
}

std::string dims(const uint3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

// The thread with number `linear` in the running block, as (x,y,z).
uint3 thread_index(unsigned linear) {
  const dim3 d = detail::current_block->block_dim;
  return {linear % d.x, linear / d.x % d.y, linear / (d.x * d.y)};
}

// ---- the records

std::uint64_t record(unsigned thread, unsigned bytes) {
  const detail::BlockContext& b = *detail::current_block;
  return std::uint64_t{b.launch & 0xFFFFFu} << 44 | (b.linear & 0x3FFFFFFFu) << 14 |
         std::uint64_t{thread & 0x3FFu} << 4 | bytes;
}
unsigned launch_of(std::uint64_t r) { return static_cast<unsigned>(r >> 44); }
std::uint64_t block_of(std::uint64_t r) { return r >> 14 & 0x3FFFFFFFu; }
unsigned thread_of(std::uint64_t r) { return static_cast<unsigned>(r >> 4 & 0x3FFu); }
unsigned bytes_of(std::uint64_t r) { return static_cast<unsigned>(r & 0xFu); }

std::uint32_t pack_sync(std::uint64_t sync) {
  return static_cast<std::uint32_t>((sync >> 32 & 0xFFFFFu) << 12 | (sync & 0xFFFu));
}
std::uint64_t unpack_sync(std::uint32_t packed) { return std::uint64_t{packed >> 12} << 32 | (packed & 0xFFFu); }
std::uint32_t launch_tag(std::uint32_t launch) { return launch % 1023 + 1; }

// A GlobalCell's writer word (from a record, the launch's tag and the instruction's number), and
// the record it stands for (the launch as its tag, the block's low 24 bits): what order() compares
// with the access now, made the same way.
std::uint64_t global_writer(std::uint64_t record, std::uint32_t tag, std::uint16_t instruction) {
  return std::uint64_t{instruction} << 48 | std::uint64_t{tag} << 38 | (block_of(record) & 0xFFFFFFu) << 14 |
         (record & 0x3FFFu);
}
std::uint64_t as_record(std::uint64_t writer) {
  return (writer >> 38 & 0x3FFu) << 44 | (writer >> 14 & 0xFFFFFFu) << 14 | (writer & 0x3FFFu);
}

// The writing instructions, numbered (1 to 65535; 0: one past the table's room), so a GlobalCell
// keeps two bytes for its writer's instruction instead of eight. Each worker keeps the numbers it
// used last.
constexpr std::size_t kInstructions = 65536;
std::atomic<const void*>* instruction_table() {
  static auto* table = new std::atomic<const void*>[kInstructions]();
  return table;
}
struct InstructionCache {
  const void* pc[16] = {};
  std::uint16_t id[16] = {};
};
thread_local constinit InstructionCache* instruction_cache = nullptr;  // (on the heap: see pending_races)

[[gnu::noinline]] std::uint16_t number_instruction(const void* pc) {
  static std::mutex mutex;
  static auto& numbers = *new std::map<const void*, std::uint16_t>;
  std::lock_guard lock(mutex);
  const auto found = numbers.find(pc);
  if (found != numbers.end()) return found->second;
  if (numbers.size() + 1 >= kInstructions) return 0;
  const auto id = static_cast<std::uint16_t>(numbers.size() + 1);
  instruction_table()[id].store(pc, std::memory_order_release);
  numbers.emplace(pc, id);
  return id;
}
std::uint16_t pc_id(const void* pc) {
  if (instruction_cache == nullptr) instruction_cache = new InstructionCache;
  const std::size_t slot = reinterpret_cast<std::uintptr_t>(pc) >> 2 & 15;
  if (instruction_cache->pc[slot] == pc) return instruction_cache->id[slot];
  const std::uint16_t id = number_instruction(pc);
  instruction_cache->pc[slot] = pc, instruction_cache->id[slot] = id;
  return id;
}
std::uintptr_t pc_of(std::uint64_t writer) {
  return reinterpret_cast<std::uintptr_t>(instruction_table()[writer >> 48].load(std::memory_order_acquire));
}

bool writes(Access kind) { return kind == Access::write || kind == Access::volatile_write || kind == Access::atomic; }

enum class Order { none, same_thread, ordered, other_block, racing };

// How an earlier access `before` (with its sync word) stands to the running thread's access of
// the bytes `bytes` now.
Order order(std::uint64_t before, std::uint64_t before_sync, unsigned bytes, std::uint64_t now,
            std::uint64_t now_sync) {
  if (before == 0 || launch_of(before) != launch_of(now) || (bytes_of(before) & bytes) == 0) return Order::none;
  if (block_of(before) != block_of(now)) return Order::other_block;
  const unsigned t0 = thread_of(before), t1 = thread_of(now);
  if ((before_sync & ~kManyReaders) >> 32 != now_sync >> 32) return Order::ordered;  // a barrier since
  if (t0 / 32 == t1 / 32 && (before_sync & 0xFFFFFFFFu) != (now_sync & 0xFFFFFFFFu)) return Order::ordered;
  return t0 == t1 ? Order::same_thread : Order::racing;
}

// ---- what an address is

std::string element_words(std::size_t count, std::size_t element_bytes, const std::string& type) {
  if (!type.empty()) return std::to_string(count) + " × " + type;
  if (element_bytes <= 1) return std::to_string(count) + " bytes";
  return std::to_string(count) + (count == 1 ? " element of " : " elements of ") + std::to_string(element_bytes) +
         " bytes";
}

// "'tile' (32 × 32 × float)" for a static shared array.
std::string describe_shared(const shared::Window& w, const shared::Array& a) {
  if (a.declaration == nullptr) {
    const std::string name = w.dynamic_name != nullptr ? w.dynamic_name : "dynamic shared memory";
    const std::size_t e = w.dynamic_element_bytes;
    return "'" + name + "' (extern __shared__, " +
           element_words(a.bytes / e, e, w.dynamic_type != nullptr ? w.dynamic_type : "") + " at this launch)";
  }
  const detail::SharedDeclaration& d = *a.declaration;
  std::string shape;
  for (std::size_t i = 0; i < d.rank; ++i) shape += std::to_string(d.extents[i]) + " × ";
  if (d.rank == 0) return "'" + std::string(d.name) + "' (" + d.type + ")";
  return "'" + std::string(d.name) + "' (" + shape + d.type + ", declared at " + d.file + ":" + std::to_string(d.line) +
         ")";
}

std::size_t element_bytes_of(const shared::Window& w, const shared::Array& a) {
  return a.declaration != nullptr ? a.declaration->element_bytes : w.dynamic_element_bytes;
}

// Where `address` lies relative to a buffer [begin, begin + bytes) of elements of `element`
// bytes: "element 1030 of X, 6 elements past its end".
std::string relative(std::uintptr_t address, std::uintptr_t begin, std::size_t bytes, std::size_t element,
                     const std::string& what) {
  const std::string unit = element > 1 ? "element" : "byte";
  if (address < begin) {
    const std::size_t before = (begin - address + element - 1) / element;
    return std::to_string(before) + " " + unit + (before == 1 ? "" : "s") + " before the start of " + what;
  }
  const std::size_t index = (address - begin) / element;
  if (address < begin + bytes) return unit + " " + std::to_string(index) + " of " + what;
  const std::size_t past = index - bytes / element + 1;  // element n is 1 past the end of n elements
  return unit + " " + std::to_string(index) + " of " + what + ", " + std::to_string(past) + " " + unit +
         (past == 1 ? "" : "s") + " past its end";
}

std::string allocated_at(const Allocation& a) {
  return a.site.empty() ? "" : "=========     '" + a.name + "' was allocated at " + a.site + "\n";
}

std::string access_line(const char* space, bool write, std::size_t size, const void* pc) {
  return "========= Invalid " + std::string(space) + (write ? " write" : " read") + " of size " + std::to_string(size) +
         (size == 1 ? " byte" : " bytes") + "\n=========     at " + where(pc) + "\n=========     by " +
         running_thread() + "\n";
}

[[noreturn]] void fatal(cudaError_t code, const std::string& key, const std::string& text) {
  report(Tool::memcheck, key, text);
  stop_running_thread(std::make_exception_ptr(KernelFault(code, text)));
}

// ---- global memory

struct CachedAllocation {
  std::uint64_t version = ~std::uint64_t{0};
  std::uintptr_t begin = 0, end = 0;
  const Allocation* allocation = nullptr;
};
thread_local CachedAllocation cache[4];
thread_local unsigned cache_next = 0;

const Allocation* lookup(std::uintptr_t a) {
  const std::uint64_t version = arena_version.load(std::memory_order_relaxed);
  for (const CachedAllocation& c : cache) {
    if (c.version == version && a >= c.begin && a < c.end) return c.allocation;
  }
  const Allocation* found = find_allocation(a);
  if (found != nullptr) cache[cache_next++ % 4] = {version, found->begin, found->end(), found};
  return found;
}

[[noreturn, gnu::noinline, gnu::cold]] void out_of_bounds(std::uintptr_t a, std::size_t size, Access kind,
                                                          const void* pc) {
  const bool write = writes(kind);
  std::string text = access_line("__global__", write, size, pc) + "=========     Address " + hex(a);
  const Nearest n = nearest_allocation(a);
  if (a < 65536) {
    text += " is a null pointer's: was the pointer passed to the kernel ever set (cudaMalloc)?\n";
  } else if (n.allocation == nullptr) {
    text += " is not device memory: no buffer is near it (a wild pointer, or a host pointer?)\n";
  } else if (n.copy.freed) {
    text += " is inside " + describe_global(n.copy) + ", which was freed (cudaFree) before this access\n" +
            allocated_at(n.copy);
  } else {
    text +=
        " is out of bounds: " + relative(a, n.copy.begin, n.copy.bytes, n.copy.element_bytes, describe_global(n.copy)) +
        "\n" + allocated_at(n.copy) +
        "=========     Is every index checked against the size (if (i < n)), and is the grid the size you meant?\n";
  }
  fatal(cudaErrorIllegalAddress, "global " + std::to_string(reinterpret_cast<std::uintptr_t>(pc)), text);
}

// The bytes an access is about to write over another thread's write: compute-sanitizer calls
// a write-after-write a hazard only when it changes the value (two threads storing the same 0
// or the same flag is benign). The check runs before the write, so the report waits until the
// write is done — the worker's next access, or its block's end (settle_writes) — and is made only
// if the bytes then differ from those the earlier write left.
struct Granule {
  std::uintptr_t address = 0;
  unsigned size = 0;  // 0: not a write over a write
};
struct PendingRace {
  Granule granule;
  std::uint32_t before;  // the bytes the earlier write left
  std::string key, text;
};
// (On the heap: the emulator's thread-local storage stays small; see the CMake file.)
thread_local constinit std::vector<PendingRace>* pending_races = nullptr;
thread_local constinit bool races_pending = false;

void racecheck_report(const Granule& g, const std::string& key, const std::string& text) {
  if (g.size == 0) return report(Tool::racecheck, key, text);
  if (pending_races == nullptr) pending_races = new std::vector<PendingRace>;
  PendingRace& p = pending_races->emplace_back(PendingRace{g, 0, key, text});
  std::memcpy(&p.before, reinterpret_cast<const void*>(g.address), g.size);
  races_pending = true;
}

// (several: the earlier access is one of several reads in the interval, some by other threads;
// warp_synchronous: the access now is through volatile memory.)
void race_report(const Granule& granule, const char* space, const char* kind, std::uint64_t before,
                 std::uint64_t before_where, std::uint64_t now, const void* pc, const std::string& what,
                 bool several = false, bool warp_synchronous = false) {
  const bool before_writes = kind[2] == 'W';  // WAW and RAW: the earlier access wrote
  const bool now_writes = kind[0] == 'W';
  const auto* before_pc = reinterpret_cast<const void*>(before_where);
  std::string text = "========= Error: Race reported between " + std::string(before_writes ? "Write" : "Read") +
                     " access at " + where(before_pc) +
                     (several ? " by several threads (the last: " + dims(thread_index(thread_of(before))) + ")"
                              : " by thread " + dims(thread_index(thread_of(before)))) +
                     "\n=========     and " + (now_writes ? "Write" : "Read") + " access at " + where(pc) +
                     " by thread " + dims(thread_index(thread_of(now))) + " in block " +
                     dims(detail::current_block->block_idx) + "\n=========     (" + kind + " hazard) on " + what +
                     " in " + space + " memory: no __syncthreads() between them (nor a __syncwarp(), in one warp)\n";
  if (warp_synchronous || state().volatile_kernel) {
    text +=
        "=========     This kernel passes values between a warp's lanes through volatile memory (warp-synchronous "
        "code from before Volta): lanes no longer run in lockstep. Put __syncwarp() between the steps, or use "
        "__shfl_down_sync().\n";
  }
  racecheck_report(granule,
                   std::string(kind) + " " + std::to_string(before_where) + " " +
                       std::to_string(reinterpret_cast<std::uintptr_t>(pc)),
                   text);
}

void race_report_blocks(const Granule& granule, const char* kind, std::uint64_t before, std::uint64_t before_where,
                        const void* pc, const std::string& what) {
  const auto* before_pc = reinterpret_cast<const void*>(before_where);
  const std::string text = "========= Error: Race reported between Write access at " + where(before_pc) + " by block " +
                           std::to_string(block_of(before)) + "\n=========     and " +
                           (kind[0] == 'W' ? "Write" : "Read") + " access at " + where(pc) + " by " + running_thread() +
                           "\n=========     (" + kind + " hazard between blocks) on " + what +
                           " in __global__ memory: blocks of one launch are not ordered\n";
  racecheck_report(granule,
                   std::string("blocks ") + kind + std::to_string(before_where) + " " +
                       std::to_string(reinterpret_cast<std::uintptr_t>(pc)),
                   text);
}

void war_report_blocks(const Granule& granule, std::uint32_t reader, const void* pc, const std::string& what) {
  const dim3 grid = detail::current_block->grid_dim;
  const bool many_blocks = std::uint64_t{grid.x} * grid.y * grid.z > 0x8000;
  const std::string text =
      "========= Error: Race reported between Read access by block " + std::to_string(reader & 0x7FFFu) +
      (many_blocks ? " (its number's remainder by 32768)" : "") + "\n=========     and Write access at " + where(pc) +
      " by " + running_thread() + "\n=========     (WAR hazard between blocks) on " + what +
      " in __global__ memory: blocks of one launch are not ordered, so the read may see the "
      "value before this write or after it (an in-place update that other blocks still read?)\n";
  racecheck_report(granule, "blocks WAR " + std::to_string(reinterpret_cast<std::uintptr_t>(pc)), text);
}

// The reports, out of the way of the checks' fast path.
[[gnu::noinline, gnu::cold]] std::string global_element(const Allocation& alloc, std::uintptr_t address) {
  return relative(address, alloc.begin, alloc.bytes, alloc.element_bytes, describe_global(alloc));
}

[[gnu::noinline, gnu::cold]] void uninitialised_read(const Allocation& alloc, std::uintptr_t address, std::size_t size,
                                                     bool atomic, const void* pc) {
  report(Tool::initcheck, "init " + std::to_string(reinterpret_cast<std::uintptr_t>(pc)),
         "========= Uninitialized __global__ memory read of size " + std::to_string(size) + " bytes" +
             (atomic ? " (an atomic)" : "") + "\n=========     at " + where(pc) + "\n=========     by " +
             running_thread() + "\n=========     on " + global_element(alloc, address) +
             ": nothing wrote it since cudaMalloc (no cudaMemcpy, cudaMemset or kernel)\n" + allocated_at(alloc));
}

[[gnu::noinline, gnu::cold]] void global_race(const Allocation& alloc, std::uintptr_t address, unsigned size, Order o,
                                              bool write, bool warp_synchronous, std::uint64_t writer,
                                              std::uint64_t where, std::uint64_t now, const void* pc) {
  const Granule granule{address, write ? size : 0u};
  if (o == Order::racing) {
    race_report(granule, "__global__", write ? "WAW" : "RAW", writer, where, now, pc, global_element(alloc, address),
                false, warp_synchronous);
  } else if (write || !state().launch_used_atomics.load(std::memory_order_relaxed)) {
    race_report_blocks(granule, write ? "WAW" : "RAW", writer, where, pc, global_element(alloc, address));
  }
}

// Which of a granule's 4 bytes [lo, hi) covers (offsets from the granule's start).
unsigned byte_mask(std::uintptr_t lo, std::uintptr_t hi) { return ((1u << (hi - lo)) - 1u) << lo; }

// What a kernel's threads touched, for stream_order: each buffer's span of reads and of writes,
// gathered on the worker and handed over when its block ends (a few spans: kernels touch few buffers).
struct Span {
  const Allocation* buffer;
  std::uintptr_t lo, hi;
  bool write;
};
struct Spans {
  Span span[8];
  unsigned count = 0;
};
thread_local constinit Spans* spans = nullptr;  // (on the heap: see pending_races)

void hand_over_spans() {
  if (spans == nullptr) return;
  for (unsigned i = 0; i < spans->count; ++i) {
    stream_order::touched(spans->span[i].lo, spans->span[i].hi - spans->span[i].lo, spans->span[i].write);
  }
  spans->count = 0;
}

[[gnu::noinline]] void note_span(const Allocation* buffer, std::uintptr_t a, std::size_t size, bool write) {
  if (spans == nullptr) spans = new Spans;
  for (unsigned i = 0; i < spans->count; ++i) {
    Span& s = spans->span[i];
    if (s.buffer == buffer && s.write == write) {
      s.lo = std::min(s.lo, a), s.hi = std::max(s.hi, a + size);
      return;
    }
  }
  if (spans->count == 8) hand_over_spans();
  spans->span[spans->count++] = Span{buffer, a, a + size, write};
}

// Granule g's checks against a record of the running launch (a race, or a write after another
// block's read) and, for a write, its new record. Out of line: most reads find a record of an
// earlier launch (an input the host copied) and need none of this.
[[gnu::noinline]] void check_granule(const Allocation& alloc, std::uintptr_t g, std::uintptr_t offset, std::size_t size,
                                     Access kind, const GlobalCell& cell, const void* pc) {
  const bool write = writes(kind);
  const std::uint32_t me = detail::current_block->reader_tag;
  const std::uint64_t now_sync = detail::sync_stamp();
  const std::uintptr_t lo = std::max(offset, g * 4), hi = std::min(offset + size, g * 4 + 4);
  const unsigned bytes = byte_mask(lo - g * 4, hi - g * 4);
  const std::uint64_t full = record(detail::running_linear, bytes);
  const std::uint64_t now = as_record(global_writer(full, me >> 22, 0));
  const std::uint64_t writer = as_record(cell.writer);
  const Order o = order(writer, unpack_sync(cell.sync), bytes, now, unpack_sync(pack_sync(now_sync)));
  if (o == Order::racing || o == Order::other_block) [[unlikely]] {
    global_race(alloc, alloc.begin + lo, static_cast<unsigned>(hi - lo), o, write,
                kind == Access::volatile_read || kind == Access::volatile_write, writer, pc_of(cell.writer), now, pc);
  }
  if (!write) return;
  if (cell.reader >> 22 == me >> 22 && cell.reader != me && o != Order::other_block &&
      !state().launch_used_atomics.load(std::memory_order_relaxed)) [[unlikely]] {
    war_report_blocks({alloc.begin + lo, static_cast<unsigned>(hi - lo)}, cell.reader, pc,
                      global_element(alloc, alloc.begin + lo));
  }
  records::store_write(*alloc.records, g, global_writer(full, me >> 22, pc_id(pc)), pack_sync(now_sync), offset, size);
}

void global_access(std::uintptr_t a, std::size_t size, Access kind, const void* pc) {
  const Allocation* alloc = lookup(a);
  if (alloc == nullptr || a + size > alloc->end()) [[unlikely]]
    out_of_bounds(a, size, kind, pc);
  if (stream_order::collecting) [[unlikely]]
    note_span(alloc, a, size, writes(kind));
  if (alloc->records == nullptr) return;
  GlobalRecords& records = *alloc->records;
  const bool atomic = kind == Access::atomic;
  const bool write = writes(kind) && !atomic;
  const std::uint32_t me = detail::current_block->reader_tag;
  const std::uintptr_t offset = a - alloc->begin;
  for (std::uintptr_t g = offset / 4; g <= (offset + size - 1) / 4; ++g) {
    const GlobalCell cell = write || atomic ? records::load(records, g, me >> 22) : records::read(records, g, me);
    if (cell.writer == 0 && !write) [[unlikely]] {  // atomics read the value too
      uninitialised_read(*alloc, alloc->begin + std::max(offset, g * 4), size, atomic, pc);
      if (atomic) records::mark_written(records, g);
      continue;
    }
    if (atomic) continue;  // never a race
    // A read of what an earlier launch or the host wrote is never a race (order() says none).
    if (!write && (cell.writer >> 38 & 0x3FF) != me >> 22) continue;
    check_granule(*alloc, g, offset, size, kind, cell, pc);
  }
}

// ---- shared memory

[[gnu::noinline, gnu::cold]] std::string shared_element(const shared::Window& w, const shared::Array& array,
                                                        std::uintptr_t address) {
  return relative(address, array.begin, array.bytes, element_bytes_of(w, array), describe_shared(w, array));
}

[[noreturn, gnu::noinline, gnu::cold]] void shared_out_of_bounds(const shared::Window& w, std::uintptr_t a,
                                                                 std::size_t size, Access kind, const void* pc) {
  std::string text = access_line("__shared__", writes(kind), size, pc) + "=========     Address " + hex(a);
  if (const shared::Array* near = shared::nearest(w, a)) {
    text += " is out of bounds: " + shared_element(w, *near, a) +
            "\n=========     On a GPU this reads or writes another variable's shared memory, or faults when it "
            "leaves the block's: is the block bigger than the array, or a tile's halo missing from its size?\n";
  } else {
    text += " is outside the block's shared memory (this kernel declares none)\n";
  }
  fatal(cudaErrorIllegalAddress, "shared " + std::to_string(reinterpret_cast<std::uintptr_t>(pc)), text);
}

void shared_access(const shared::Window& w, std::uintptr_t a, std::size_t size, Access kind, const void* pc) {
  const shared::Array* array = shared::find(w, a, size);
  if (array == nullptr) [[unlikely]]
    shared_out_of_bounds(w, a, size, kind, pc);
  if (w.cells == nullptr || kind == Access::atomic) return;
  const bool write = writes(kind);
  const bool warp_synchronous = kind == Access::volatile_read || kind == Access::volatile_write;
  const unsigned thread = detail::running_linear;
  const std::uint64_t now_sync = detail::sync_stamp();
  const std::uintptr_t offset = a - w.usable_begin;
  for (std::uintptr_t g = offset / 4; g <= (offset + size - 1) / 4; ++g) {
    const std::uintptr_t lo = std::max(offset, g * 4), hi = std::min(offset + size, g * 4 + 4);
    const unsigned bytes = byte_mask(lo - g * 4, hi - g * 4);
    shared::Cell& cell = w.cells[g];
    const std::uint64_t now = record(thread, bytes);
    const Order after_write = order(cell.writer, cell.writer_sync, bytes, now, now_sync);
    const Order after_read = order(cell.reader, cell.reader_sync, bytes, now, now_sync);
    const bool many =
        (after_read == Order::racing || after_read == Order::same_thread) && (cell.reader_sync & kManyReaders) != 0;
    if (after_write == Order::racing) [[unlikely]] {
      race_report({w.usable_begin + lo, write ? static_cast<unsigned>(hi - lo) : 0u}, "__shared__",
                  write ? "WAW" : "RAW", cell.writer, cell.writer_where, now, pc,
                  shared_element(w, *array, w.usable_begin + lo), false, warp_synchronous);
    } else if (write && (after_read == Order::racing || many)) [[unlikely]] {
      race_report({}, "__shared__", "WAR", cell.reader, cell.reader_where, now, pc,
                  shared_element(w, *array, w.usable_begin + lo), many, warp_synchronous);
    }
    if (write) {
      cell.writer = now, cell.writer_sync = now_sync, cell.writer_where = reinterpret_cast<std::uintptr_t>(pc);
      cell.reader = 0;
    } else {
      cell.reader = now;
      cell.reader_sync = now_sync | (after_read == Order::racing || many ? kManyReaders : 0);
      cell.reader_where = reinterpret_cast<std::uintptr_t>(pc);
    }
  }
}

[[noreturn, gnu::noinline, gnu::cold]] void misaligned(std::uintptr_t a, std::size_t size, Access kind, bool device,
                                                       const void* pc, std::size_t align) {
  fatal(cudaErrorMisalignedAddress, "misaligned " + std::to_string(reinterpret_cast<std::uintptr_t>(pc)),
        access_line(device ? "__global__" : "__shared__", writes(kind), size, pc) + "=========     Address " + hex(a) +
            " is misaligned: a " + std::to_string(size) + "-byte access must start at a multiple of " +
            std::to_string(align) + "\n");
}

std::atomic<bool> whole_program{false};
std::atomic<bool> go_on{false};             // its launches go on past reports (launches_go_on)
std::atomic<bool> reports_to_stderr{true};  // write_reports_to_stderr
constexpr std::size_t kReportsKept = 4;     // reports of one launch kept beyond its first, where not written

void at_exit() {
  if (whole_program) return;  // at_program_exit says it
  State& s = state();
  std::size_t total = 0;
  for (const std::size_t n : s.errors) total += n;
  if (total == 0) return;
  std::string counts;
  for (int t = 0; t < 4; ++t) {
    if (s.errors[t] == 0) continue;
    counts += (counts.empty() ? "" : ", ") + std::to_string(s.errors[t]) + " " + tool_name(static_cast<Tool>(t));
  }
  std::fprintf(stderr, "========= ERROR SUMMARY: %zu error%s (%s), found by GPU Lab's checked mode\n", total,
               total == 1 ? "" : "s", counts.c_str());
}

void at_program_exit() {
  const std::string leaks = describe_leaks();
  if (!leaks.empty()) std::fputs(leaks.c_str(), stderr);
  whole_program = false;
  at_exit();
  std::size_t total = 0;
  for (const std::size_t n : state().errors) total += n;
  if (total == 0) return;
  std::fflush(nullptr);
  _exit(1);
}

}  // namespace

std::string describe_global(const Allocation& a) {
  return "'" + a.name + "' (" + element_words(a.bytes / a.element_bytes, a.element_bytes, "") + ")";
}

Level launch_level = Level::off;
bool hooks_on = false;

namespace {
thread_local constinit int chosen_level = -1;  // a UseLevel's, or -1
}

Level default_level() {
  static const Level chosen = [] {
    const char* env = std::getenv("GPULAB_CHECK");
    const std::string name = env != nullptr ? env : "";
    return name == "memcheck" ? Level::memcheck : name == "off" ? Level::off : Level::full;
  }();
  return chosen;
}

Level level() { return chosen_level >= 0 ? static_cast<Level>(chosen_level) : default_level(); }

UseLevel::UseLevel(Level level) : previous_(chosen_level) { chosen_level = static_cast<int>(level); }
UseLevel::~UseLevel() { chosen_level = previous_; }

void access(std::uintptr_t a, std::size_t size, Access kind, const void* pc, bool typed) {
  if (detail::current_block == nullptr || size == 0) return;  // host code
  if (races_pending) [[unlikely]]
    settle_writes();  // the write that raised them is done
  const bool device = a - arena_begin < arena_end - arena_begin;
  const shared::Window* w = shared::current_window;
  const bool in_shared = w != nullptr && a - w->reserved_begin < w->reserved_end - w->reserved_begin;
  if (!device && !in_shared) {
    if (a < 65536) out_of_bounds(a, size, kind, pc);
    return;  // the thread's own stack, the kernel's arguments, __constant__ and __device__ variables
  }
  if (kind == Access::atomic) state().launch_used_atomics.store(true, std::memory_order_relaxed);
  // (Past 4 bytes only where the type says so: a struct of floats is copied with wider moves than
  // its alignment.)
  if (const std::size_t align = typed || size < 4 ? size : 4; (a & (align - 1)) != 0 && (size & (size - 1)) == 0)
      [[unlikely]] {
    misaligned(a, size, kind, device, pc, align);
  }
  if (device) {
    global_access(a, size, kind, pc);
  } else {
    shared_access(*w, a, size, kind, pc);
  }
  // In bounds (a wild access stopped the thread above): what a profiler would count.
  if (memory_counter::counting() && kind != Access::atomic) {
    memory_counter::note(a, static_cast<unsigned>(size), writes(kind), !device, pc);
  }
  if (!device) shared_steps::note(a, size, kind == Access::atomic || writes(kind));
}

// The extents of an array type as the compiler names it: "float [32][33]" -> {32, 33}.
std::vector<std::size_t> extents_of(const std::string& type) {
  std::vector<std::size_t> extents;
  for (std::size_t open = type.find('['); open != std::string::npos; open = type.find('[', open + 1)) {
    extents.push_back(std::strtoull(type.c_str() + open + 1, nullptr, 10));
  }
  return extents;
}

// Whether `extents` are those of a static __shared__ array of the running block, or of its rows.
bool shared_array_extents(const std::vector<std::size_t>& extents) {
  const shared::Window* w = shared::current_window;
  if (w == nullptr || extents.empty()) return false;
  for (const shared::Array& array : w->arrays) {
    const detail::SharedDeclaration* d = array.declaration;
    if (d == nullptr || d->rank < extents.size()) continue;
    if (std::equal(extents.begin(), extents.end(), d->extents + (d->rank - extents.size()))) return true;
  }
  return false;
}

void index_out_of_bounds(const char* array_type, long long index, bool negative, const void* pc, const char* file,
                         unsigned line) {
  std::string type = array_type;
  if (type.size() >= 2 && type.front() == '\'' && type.back() == '\'') type = type.substr(1, type.size() - 2);
  const std::vector<std::size_t> extents = extents_of(type);
  if (shared_array_extents(extents)) return;
  std::string at = where(pc);
  if (at.empty() || at.rfind("??", 0) == 0) at = std::string(file) + ":" + std::to_string(line);
  const std::string index_text =
      negative ? std::to_string(index) : std::to_string(static_cast<unsigned long long>(index));
  fatal(cudaErrorIllegalAddress, "index " + std::to_string(reinterpret_cast<std::uintptr_t>(pc)),
        "========= Invalid __local__ access: index " + index_text + " is out of bounds for type '" + type + "'" +
            (extents.empty() || extents[0] == 0 ? "" : " (valid: 0 to " + std::to_string(extents[0] - 1) + ")") +
            "\n=========     at " + at + "\n=========     by " + running_thread() +
            "\n=========     An array of fixed size (a kernel's local array, or a row of a 2-D one) indexed past its "
            "end: on a GPU this reads or writes the thread's other variables, or another row, without a word. Is "
            "the loop bound the array's size?\n");
}

std::uint32_t reader_tag(std::uint32_t launch, std::uint64_t block) {
  // (The block's low 15 bits: what global_records.hpp keeps of a reader in two bytes; blocks a
  // multiple of 32,768 apart are taken for one reader, so a race between them may go unseen.)
  return launch_tag(launch) << 22 | static_cast<std::uint32_t>(block & 0x7FFFu);
}

void end_block() {
  settle_writes();
  hand_over_spans();
}

void settle_writes() {
  if (!races_pending) return;
  races_pending = false;
  for (const PendingRace& p : *pending_races) {
    std::uint32_t after = 0;
    std::memcpy(&after, reinterpret_cast<const void*>(p.granule.address), p.granule.size);
    if (after != p.before) report(Tool::racecheck, p.key, p.text);
  }
  pending_races->clear();
}

void begin_launch(const char* kernel) {
  static const bool registered = [] { return std::atexit(at_exit) == 0; }();
  (void)registered;
  State& s = state();
  std::lock_guard lock(s.mutex);
  // The launch tags of the buffers' readers come round: the old ones must not look like this launch's.
  const std::uint32_t number = s.launch.fetch_add(1) + 1;
  if (launch_tag(number) == 1) forget_launch_tags();
  records::begin_launch(number);
  s.kernel = kernel;
  s.first_report.clear();
  s.later_reports.clear();
  s.later_count = 0;
  s.seen.clear();
  s.volatile_kernel = false;
  s.launch_used_atomics = false;
  // A profiler's counts and the shared-memory steps come through the checks: at least memcheck.
  Level chosen = level();
  if (chosen == Level::off && (memory_counter::counting() || shared_steps::recording())) chosen = Level::memcheck;
  launch_level = chosen;
  hooks_on = chosen != Level::off;
}

std::uint32_t launch_number() { return state().launch.load(); }

std::string end_launch() {
  // What a launch without checks wrote, racecheck and initcheck did not see: the live buffers'
  // records of who wrote what are dropped (their bounds are still checked), so a later checked
  // launch reports no uninitialised read of what that launch wrote.
  if (launch_level == Level::off) forget_writers();
  records::end_launch();
  launch_level = Level::off;
  hooks_on = false;
  State& s = state();
  std::lock_guard lock(s.mutex);
  std::string text = s.first_report;
  std::size_t repeats = 0;
  for (const auto& [key, count] : s.seen) repeats += count - 1;
  if (!reports_to_stderr) {  // every report is in the launch's error (the first few in full)
    text += s.later_reports;
    if (s.later_count > kReportsKept) {
      text += "(and " + std::to_string(s.later_count - kReportsKept) + " more report" +
              (s.later_count - kReportsKept == 1 ? "" : "s") + " of this launch)\n";
    }
  } else if (!text.empty() && s.seen.size() > 1) {
    text += "(and " + std::to_string(s.seen.size() - 1) + " more report" + (s.seen.size() == 2 ? "" : "s") +
            " of this launch on stderr)\n";
  }
  if (!text.empty() && repeats > 0) {
    text += "(the same error" + std::string(s.seen.size() == 1 ? " was" : "s were") + " seen " +
            std::to_string(repeats) + " more time" + (repeats == 1 ? "" : "s") + " in this launch)\n";
  }
  return text;
}

namespace {
void report_under(Tool tool, const std::string& key, const std::string& text, const std::string& heading) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  const std::string full_key = std::string(tool_name(tool)) + " " + key;
  if (s.seen[full_key]++ > 0) return;
  ++s.errors[static_cast<int>(tool)];
  const std::string with_kernel = "========= " + std::string(tool_name(tool)) +
                                  (heading.empty() ? " in kernel " + s.kernel : heading) + ":\n" + text;
  if (reports_to_stderr) {
    std::fputs(with_kernel.c_str(), stderr);
    std::fflush(stderr);
  }
  if (s.first_report.empty()) {
    s.first_report = with_kernel;
  } else if (!reports_to_stderr && s.later_count++ < kReportsKept) {
    s.later_reports += with_kernel;
  }
}
}  // namespace

void report(Tool tool, const std::string& key, const std::string& text) { report_under(tool, key, text, ""); }
void report_between_streams(const std::string& key, const std::string& text) {
  report_under(Tool::racecheck, key, text, " between streams");
}

std::string running_thread() {
  if (detail::current_block == nullptr) return "the host";
  return "thread " + dims(::threadIdx) + " in block " + dims(detail::current_block->block_idx);
}

std::string where(const void* pc) {
  State& s = state();
  std::lock_guard lock(s.places_mutex);
  if (const auto it = s.places.find(pc); it != s.places.end()) return it->second;
  std::string text = hex(reinterpret_cast<std::uintptr_t>(pc));
  Dl_info info{};
  if (pc != nullptr && dladdr(pc, &info) != 0 && info.dli_fname != nullptr) {
    const std::uintptr_t offset =
        reinterpret_cast<std::uintptr_t>(pc) - 1 - reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    std::string file = info.dli_fname;
    if (file.empty() || file.find('/') == std::string::npos) file = "/proc/self/exe";
    const std::string command = "addr2line -f -i -e '" + file + "' " + hex(offset) + " 2>/dev/null";
    if (FILE* pipe = popen(command.c_str(), "r")) {
      char line[4096];
      // Pairs of lines, function then file:line, from the innermost inlined call outwards: the
      // first place in the program's own code (not the emulator's or the library's headers).
      bool odd = true;
      std::string found;
      while (std::fgets(line, sizeof line, pipe) != nullptr) {
        std::string l(line);
        while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
        if (!odd && found.empty() && l.rfind("??", 0) != 0 && l.find("/emulator/") == std::string::npos &&
            l.find("/include/c++/") == std::string::npos) {
          if (const std::size_t paren = l.find(" (discriminator"); paren != std::string::npos) l.erase(paren);
          found = l;
        }
        odd = !odd;
      }
      pclose(pipe);
      // Relative to the working folder, as the program's own messages name its files.
      char cwd[4096];
      if (getcwd(cwd, sizeof cwd) != nullptr && found.rfind(std::string(cwd) + "/", 0) == 0) {
        found.erase(0, std::strlen(cwd) + 1);
      }
      if (!found.empty()) text = found;
    }
  }
  s.places[pc] = text;
  return text;
}

std::string unmapped_access_report(std::uintptr_t address, const void* pc, const std::string& thread) {
  std::string text = "========= Invalid memory access (an unmapped address)\n=========     at " + where(pc) +
                     "\n=========     by " + thread + "\n=========     Address " + hex(address);
  const Nearest n = nearest_allocation(address);
  if (n.allocation != nullptr && !n.copy.freed) {
    text += ": " + relative(address, n.copy.begin, n.copy.bytes, n.copy.element_bytes, describe_global(n.copy));
  } else if (n.allocation != nullptr) {
    text += " is inside " + describe_global(n.copy) + ", which was freed";
  } else {
    text += " is not device memory: no buffer is near it (a wild pointer, or a host pointer?)";
  }
  text += "\n";
  report(Tool::memcheck, "unmapped " + std::to_string(reinterpret_cast<std::uintptr_t>(pc)), text);
  return text;
}

void note_volatile_kernel() {
  std::lock_guard lock(state().mutex);
  state().volatile_kernel = true;
}

std::string reported_tool(const std::string& message) {
  for (int t = 0; t < 4; ++t) {
    const std::string name = tool_name(static_cast<Tool>(t));
    if (message.find("========= " + name + " in kernel") != std::string::npos) return name;
  }
  return "";
}

bool launches_go_on() { return go_on; }

void write_reports_to_stderr(bool yes) { reports_to_stderr = yes; }

int exit_nonzero_on_errors(bool launches_go_on) {
  go_on = launches_go_on;
  if (!whole_program.exchange(true)) std::atexit(at_program_exit);
  return 0;
}

}  // namespace check

}  // namespace gpulab::emulated
