// The checks behind every access of an instrumented kernel (see checker.hpp; the records' words
// are in check_internal.hpp, the reports in check_reports.cpp), and the checker as the observer in
// front of a launch (observer.hpp).
#include "emulator/observers/checker.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "emulator/execution/shared_memory.hpp"
#include "emulator/language/cuda_language.hpp"
#include "emulator/observers/check_internal.hpp"
#include "emulator/observers/global_records.hpp"
#include "emulator/observers/observer.hpp"
#include "emulator/observers/stream_order.hpp"
#include "emulator/runtime/memory.hpp"

namespace gpulab::emulated::check {

using namespace internal;

namespace {

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

// ---- global memory

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
  const std::uint64_t full = record(detail::running_linear(), bytes);
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
    war_between_blocks(alloc, alloc.begin + lo, static_cast<unsigned>(hi - lo), cell.reader, pc);
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

void shared_access(const shared::Window& w, std::uintptr_t a, std::size_t size, Access kind, const void* pc) {
  const shared::Array* array = shared::find(w, a, size);
  if (array == nullptr) [[unlikely]]
    shared_out_of_bounds(w, a, size, kind, pc);
  if (w.cells == nullptr || kind == Access::atomic) return;
  const bool write = writes(kind);
  const bool warp_synchronous = kind == Access::volatile_read || kind == Access::volatile_write;
  const unsigned thread = detail::running_linear();
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
      shared_race(w, *array, {w.usable_begin + lo, write ? static_cast<unsigned>(hi - lo) : 0u}, write ? "WAW" : "RAW",
                  cell.writer, cell.writer_where, now, pc, false, warp_synchronous);
    } else if (write && (after_read == Order::racing || many)) [[unlikely]] {
      shared_race(w, *array, {w.usable_begin + lo, 0u}, "WAR", cell.reader, cell.reader_where, now, pc, many,
                  warp_synchronous);
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

}  // namespace

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
  // In bounds (a wild access stopped the thread above): handed on to the observers watching the
  // launch (a profiler's counts, the shared-memory steps).
  observe::access({a, static_cast<unsigned>(size), writes(kind), kind == Access::atomic, !device, pc});
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

namespace {

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
  if (chosen == Level::off && observe::watching_behind != 0) chosen = Level::memcheck;
  launch_level = chosen;
  hooks_on = chosen != Level::off;
}

std::string last_reports;  // of the last launch to end

void end_launch() {
  // What a launch without checks wrote, racecheck and initcheck did not see: the live buffers'
  // records of who wrote what are dropped (their bounds are still checked), so a later checked
  // launch reports no uninitialised read of what that launch wrote.
  if (launch_level == Level::off) forget_writers();
  records::end_launch();
  launch_level = Level::off;
  hooks_on = false;
  last_reports = gather_reports();
}

// The checker as the observer in front (observer.hpp).
class Checker final : public observe::Observer {
 public:
  bool watches() const override { return true; }
  void begin_launch(const observe::LaunchShape& launch) override { check::begin_launch(launch.kernel); }
  // The block's last writes are done: racecheck's pending write-after-writes are decided.
  void end_block() override {
    settle_writes();
    hand_over_spans();
  }
  void end_launch() override { check::end_launch(); }
};

}  // namespace

observe::Observer& observer() {
  static Checker checker;
  return checker;
}

std::uint32_t launch_number() { return state().launch.load(); }

std::string launch_reports() { return last_reports; }

}  // namespace gpulab::emulated::check
