#include "emulator/observers/global_records.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <mutex>
#include <new>
#include <thread>
#include <utility>
#include <vector>

#include "emulator/observers/checker.hpp"

namespace gpulab::emulated {

namespace records::layout {
Pattern* patterns = nullptr;
}

using namespace records::layout;

namespace {

constexpr std::size_t kPage = 4096;
constexpr std::uint64_t kThreadBits = std::uint64_t{0x3FF} << 4;
constexpr std::size_t kPatterns = std::size_t{1} << 22;  // a launch's table (kBusy and kFull excepted)

template <typename T>
T* map(std::size_t count) {
  if (count == 0) return nullptr;
  void* p =
      mmap(nullptr, count * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return static_cast<T*>(p);
}
std::size_t mapped_bytes(std::size_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }
template <typename T>
void unmap(T* p, std::size_t count) {
  if (p != nullptr) munmap(p, mapped_bytes(count * sizeof(T)));
}
// Gives the pages back (they read as zeros after).
template <typename T>
void clear(T* p, std::size_t count) {
  if (p != nullptr) madvise(p, mapped_bytes(count * sizeof(T)), MADV_DONTNEED);
}

void pause() { std::this_thread::yield(); }

template <typename T>
bool replace(T& word, T& expected, T desired) {
  return std::atomic_ref(word).compare_exchange_weak(expected, desired, std::memory_order_acq_rel,
                                                     std::memory_order_acquire);
}

struct Launch {
  std::mutex mutex;
  std::uint32_t number = 0;
  std::atomic<std::size_t> used{0};  // patterns in its table (records::layout::patterns)
  std::vector<GlobalRecords*> listed;
};
Launch& launch() {
  static Launch* l = [] {  // never destroyed: buffers freed at exit still come here
    patterns = map<Pattern>(kPatterns);
    return new Launch;
  }();
  return *l;
}

// The patterns a worker made last in this launch (on the heap: the emulator's TLS stays small).
struct RecentPatterns {
  std::uint32_t launch = 0;
  std::uint32_t index[2] = {};
  unsigned next = 0;
};
thread_local constinit RecentPatterns* recent = nullptr;

bool fits(const Pattern& p, std::int64_t offset, std::size_t size, unsigned thread, std::uint64_t writer,
          std::uint32_t sync) {
  return p.width == size && p.origin + std::int64_t{thread} * p.width == offset && p.writer == writer && p.sync == sync;
}

// A pattern of this launch the write fits: the worker's last, or a new one; kFull when the write
// is not of whole granules, or the table is full.
std::uint64_t pattern_for(std::uintptr_t offset, std::size_t size, std::uint64_t writer, std::uint32_t sync) {
  if (offset % 4 != 0 || size < 4 || !std::has_single_bit(size)) return kFull;
  const auto thread = static_cast<unsigned>(writer >> 4 & 0x3FF);
  const std::uint64_t base = writer & ~kThreadBits;
  const auto at = static_cast<std::int64_t>(offset);
  Launch& l = launch();
  if (recent == nullptr) recent = new RecentPatterns;
  if (recent->launch != l.number) *recent = RecentPatterns{l.number};
  for (const std::uint32_t i : recent->index) {
    if (i != 0 && fits(patterns[i], at, size, thread, base, sync)) return i;
  }
  const std::size_t i = l.used.fetch_add(1, std::memory_order_relaxed) + 1;  // (0: none)
  if (i >= kBusy) return kFull;
  patterns[i] = Pattern{at - std::int64_t{thread} * static_cast<std::int64_t>(size), base,
                        static_cast<std::uint32_t>(size), sync};
  recent->index[recent->next++ % 2] = static_cast<std::uint32_t>(i);
  return i;
}

// The buffer is on the launch's list of buffers to tidy at its end (r.listed under the list's lock).
void list(GlobalRecords& r) {
  Launch& l = launch();
  std::lock_guard lock(l.mutex);
  if (!std::exchange(r.listed, true)) l.listed.push_back(&r);
}

// The line's state once no other worker is changing it to kFull.
std::uint64_t settled_state(const Line& line) {
  std::uint64_t state = read_word(line.state);
  while (pattern_of(state) == kBusy) pause(), state = read_word(line.state);
  return state;
}

// Granule g's record in a line kept in full.
GlobalCell full_cell(GlobalRecords& r, std::size_t g) {
  GlobalCell& cell = r.cells[g];
  return GlobalCell{std::atomic_ref(cell.writer).load(std::memory_order_relaxed),
                    std::atomic_ref(cell.sync).load(std::memory_order_relaxed),
                    std::atomic_ref(cell.reader).load(std::memory_order_relaxed)};
}

// Line n kept in full from now on, in the launch with tag `tag`: its records unpacked into cells.
void keep_in_full(GlobalRecords& r, std::size_t n, std::uint32_t tag) {
  Line& line = r.line[n];
  std::uint64_t state = read_word(line.state);
  for (;;) {
    if (pattern_of(state) == kFull) return;
    if (pattern_of(state) == kBusy) {
      pause();
      state = read_word(line.state);
    } else if (std::atomic_ref(line.state)
                   .compare_exchange_weak(state, make_state(tag_of(state), kBusy, written_of(state)),
                                          std::memory_order_seq_cst)) {
      break;
    }
  }
  std::uint64_t reader = read_word(line.reader);
  while (reader == kReadersBusy || !replace(line.reader, reader, kReadersBusy)) {
    if (reader == kReadersBusy) pause(), reader = read_word(line.reader);
  }
  // (A write that set a bit of `second` after this read finds the state busy, and writes again.)
  const std::uint64_t second = std::atomic_ref(line.second).load(std::memory_order_seq_cst);
  for (std::size_t i = 0; i < kLineGranules; ++i) {
    const std::size_t g = n * kLineGranules + i;
    GlobalCell cell = writer_in(line, state, g, tag);
    cell.reader = reader_in(r, reader, g, tag);
    r.cells[g] = cell;
  }
  std::atomic_ref(line.before)
      .fetch_or((tag_of(state) == tag ? 0 : written_of(state)) | (tag_of(second) == tag ? 0 : written_of(second)));
  {
    std::lock_guard lock(r.mutex);
    r.full.push_back(n);
  }
  list(r);
  std::atomic_ref(line.reader).store(0, std::memory_order_release);
  std::atomic_ref(line.second).store(0, std::memory_order_release);
  std::atomic_ref(line.state).store(make_state(tag, kFull, 0), std::memory_order_release);
}

// Line n's readers kept per granule from now on (its reader word is the caller's, kReadersBusy):
// block `who` read the granules `read`, block `reader` granule g.
void keep_readers(GlobalRecords& r, std::size_t n, std::uint32_t who, std::uint32_t read, std::size_t g,
                  std::uint32_t reader) {
  for (std::size_t i = 0; i < kLineGranules; ++i) {
    if (read >> i & 1) r.readers[n * kLineGranules + i] = packed_reader(who);
  }
  r.readers[g] = packed_reader(reader);
  {
    std::lock_guard lock(r.mutex);
    r.readers_kept = true;
  }
  list(r);
  std::atomic_ref(r.line[n].reader).store(std::uint64_t{reader} << 32, std::memory_order_release);
}

}  // namespace

namespace records {

GlobalRecords* make(std::size_t bytes) {
  auto* r = new GlobalRecords;
  const std::size_t granules = (bytes + 3) / 4;
  r->lines = (granules + kLineGranules - 1) / kLineGranules;
  try {
    r->line = map<Line>(r->lines);
    r->cells = map<GlobalCell>(r->lines * kLineGranules);
    r->readers = map<std::uint16_t>(r->lines * kLineGranules);
  } catch (...) {
    drop(r);
    throw;
  }
  return r;
}

void drop(GlobalRecords* r) noexcept {
  if (r == nullptr) return;
  {
    Launch& l = launch();
    std::lock_guard lock(l.mutex);
    std::erase(l.listed, r);
  }
  unmap(r->line, r->lines);
  unmap(r->cells, r->lines * kLineGranules);
  unmap(r->readers, r->lines * kLineGranules);
  delete r;
}

void begin_launch(std::uint32_t number) {
  Launch& l = launch();
  l.number = number;
  l.used.store(0, std::memory_order_relaxed);
}

void end_launch() {
  Launch& l = launch();
  std::lock_guard lock(l.mutex);
  for (GlobalRecords* r : l.listed) {
    std::lock_guard own(r->mutex);
    for (const std::size_t n : r->full) {
      std::uint32_t written = 0;
      for (std::size_t i = 0; i < kLineGranules; ++i) {
        if (r->cells[n * kLineGranules + i].writer != 0) written |= 1u << i;
      }
      r->line[n] = Line{0, 0, 0, written, 0};
    }
    if (!r->full.empty()) clear(r->cells, r->lines * kLineGranules);
    if (r->readers_kept) clear(r->readers, r->lines * kLineGranules);
    r->full.clear();
    r->readers_kept = false;
    r->listed = false;
  }
  l.listed.clear();
  // A large table's pages back too (a launch of many blocks and loops makes many patterns).
  const std::size_t used = l.used.load(std::memory_order_relaxed);
  if (used > 65536) clear(patterns, std::min(used + 1, kPatterns));
}

GlobalCell load_slow(GlobalRecords& r, std::size_t g, std::uint32_t tag) {
  Line& line = r.line[g / kLineGranules];
  for (;;) {
    const std::uint64_t state = settled_state(line);
    if (pattern_of(state) == kFull) return full_cell(r, g);
    GlobalCell cell = writer_in(line, state, g, tag);
    const std::uint64_t reader = read_word(line.reader);
    if (reader == kReadersBusy) {
      pause();
      continue;
    }
    cell.reader = reader_in(r, reader, g, tag);
    return cell;
  }
}

GlobalCell read_slow(GlobalRecords& r, std::size_t g, std::uint32_t reader) {
  const std::size_t n = g / kLineGranules;
  Line& line = r.line[n];
  for (;;) {
    const std::uint64_t state = read_word(line.state);
    if (pattern_of(state) == kFull) {
      const GlobalCell before = full_cell(r, g);
      if (before.reader != reader) std::atomic_ref(r.cells[g].reader).store(reader, std::memory_order_relaxed);
      return before;
    }
    std::uint64_t word = read_word(line.reader);
    if (pattern_of(state) == kBusy || word == kReadersBusy) {
      pause();
      continue;
    }
    GlobalCell cell;
    if (read_in_line(r, line, state, word, g, reader, cell)) return cell;
    // A second block reads the line: its readers per granule from now on.
    const auto who = static_cast<std::uint32_t>(word >> 32), read = static_cast<std::uint32_t>(word);
    if (replace(line.reader, word, kReadersBusy)) {
      cell.reader = (read >> g % kLineGranules & 1) != 0 ? who : 0;
      keep_readers(r, n, who, read, g, reader);
      return cell;
    }
  }
}

// Sets `bit` in a pattern word of this launch (the line's state or second): false when the word
// changed meanwhile.
bool add_granule(std::uint64_t& word, std::uint64_t& seen, std::uint32_t bit) {
  return (written_of(seen) & bit) != 0 || replace(word, seen, seen | bit);
}

void store_write(GlobalRecords& r, std::size_t g, std::uint64_t writer, std::uint32_t sync, std::uintptr_t offset,
                 std::size_t size) {
  const std::size_t n = g / kLineGranules;
  Line& line = r.line[n];
  const std::uint32_t bit = 1u << g % kLineGranules;
  const auto tag = static_cast<std::uint32_t>(writer >> 38 & 0x3FF);
  const auto thread = static_cast<unsigned>(writer >> 4 & 0x3FF);
  const auto at = static_cast<std::int64_t>(offset);
  const auto fits_pattern = [&](std::uint64_t word) {
    return fits(patterns[pattern_of(word)], at, size, thread, writer & ~kThreadBits, sync);
  };
  for (;;) {
    std::uint64_t state = settled_state(line);
    if (pattern_of(state) == kFull) {
      GlobalCell& cell = r.cells[g];
      std::atomic_ref(cell.writer).store(writer, std::memory_order_relaxed);
      std::atomic_ref(cell.sync).store(sync, std::memory_order_relaxed);
      return;
    }
    std::uint64_t second = std::atomic_ref(line.second).load(std::memory_order_seq_cst);
    const bool first_now = tag_of(state) == tag && written_of(state) != 0;
    const bool second_now = first_now && tag_of(second) == tag && written_of(second) != 0;
    if (!first_now) {  // the line's writes are an earlier launch's: they become "written before"
      const std::uint32_t old = (tag_of(state) != tag ? written_of(state) : 0) | written_of(second);
      if (old != 0) std::atomic_ref(line.before).fetch_or(old, std::memory_order_acq_rel);
      const std::uint64_t fresh = pattern_for(offset, size, writer, sync);
      if (fresh == kFull) {
        keep_in_full(r, n, tag);
      } else if ((second == 0 || replace(line.second, second, std::uint64_t{0})) &&  // (folded above)
                 replace(line.state, state, make_state(tag, fresh, bit))) {
        return;
      }
      continue;
    }
    // A granule written by one pattern and then by the other: which came last, the words cannot say.
    const bool by_first = (written_of(state) & bit) != 0, by_second = second_now && (written_of(second) & bit) != 0;
    if (fits_pattern(state) && !by_second) {
      if (add_granule(line.state, state, bit)) return;
      continue;
    }
    std::uint64_t fresh = kFull;
    if (second_now && fits_pattern(second) && !by_first) {
      fresh = pattern_of(second);
      if (!add_granule(line.second, second, bit)) continue;
    } else if (!second_now && !by_first && (fresh = pattern_for(offset, size, writer, sync)) != kFull) {
      if (!replace(line.second, second, make_state(tag, fresh, bit))) continue;
    } else {
      keep_in_full(r, n, tag);
      continue;
    }
    // The state may have become busy before the second word changed, and missed it: write again.
    if (pattern_of(std::atomic_ref(line.state).load(std::memory_order_seq_cst)) < kBusy) return;
  }
}

void mark_written(GlobalRecords& r, std::size_t g) {
  Line& line = r.line[g / kLineGranules];
  if (pattern_of(settled_state(line)) == kFull) {
    std::atomic_ref(r.cells[g].writer).store(check::kHostWriter, std::memory_order_relaxed);
  } else {
    std::atomic_ref(line.before).fetch_or(1u << g % kLineGranules, std::memory_order_acq_rel);
  }
}

void host_wrote(GlobalRecords& r, std::size_t first, std::size_t last) {
  for (std::size_t g = first; g <= last;) {
    const std::size_t n = g / kLineGranules, end = std::min(last + 1, (n + 1) * kLineGranules);
    const auto lo = static_cast<std::uint32_t>(g % kLineGranules), count = static_cast<std::uint32_t>(end - g);
    const std::uint32_t mask = count == 32 ? ~0u : ((1u << count) - 1u) << lo;
    Line& line = r.line[n];
    if (pattern_of(line.state) == kFull) {
      for (std::size_t k = g; k < end; ++k) r.cells[k] = GlobalCell{check::kHostWriter, 0, 0};
    } else {  // (readers are of a launch, and the host writes between launches: they are old)
      // Written before the next launch, in the state word (where a read looks first) and in `before`.
      const std::uint32_t written = written_of(line.state) | written_of(line.second) | mask;
      line.before |= written;
      line.state = make_state(0, 0, written);
      line.second = 0;
    }
    g = end;
  }
}

void forget_launches(GlobalRecords& r) {
  for (std::size_t n = 0; n < r.lines; ++n) {
    Line& line = r.line[n];
    if (pattern_of(line.state) == kFull) {  // (end_launch has handed them back: not expected)
      for (std::size_t i = 0; i < kLineGranules; ++i) {
        if (r.cells[n * kLineGranules + i].writer != 0) line.before |= 1u << i;
      }
    } else {
      line.before |= written_of(line.state) | written_of(line.second);
    }
    line.state = 0;
    line.second = 0;
    line.reader = 0;
  }
  clear(r.readers, r.lines * kLineGranules);
}

std::size_t resident_bytes(const GlobalRecords& r) {
  std::size_t total = 0;
  const auto count = [&](const void* p, std::size_t bytes) {
    if (p == nullptr) return;
    std::vector<unsigned char> in(mapped_bytes(bytes) / kPage);
    if (mincore(const_cast<void*>(p), mapped_bytes(bytes), in.data()) != 0) return;
    for (const unsigned char c : in) total += (c & 1) * kPage;
  };
  count(r.line, r.lines * sizeof(Line));
  count(r.cells, r.lines * kLineGranules * sizeof(GlobalCell));
  count(r.readers, r.lines * kLineGranules * sizeof(std::uint16_t));
  return total;
}

}  // namespace records

}  // namespace gpulab::emulated
