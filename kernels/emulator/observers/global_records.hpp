#pragma once
// What the checked mode remembers of each 4-byte granule of a device buffer — its last writer and
// its last reader in the running launch (racecheck), whether anything wrote it since cudaMalloc
// (initcheck) — packed, so that checking a program costs less than twice the device memory it
// allocates.
//
// A granule's record, unpacked, is a GlobalCell (checker.cpp makes and reads its words). One per
// granule, it takes 16 bytes for 4. But in a launch, the threads of a warp (and mostly of a block)
// write neighbouring granules with one instruction between the same barriers: thread t writes the
// bytes [o + t·w, o + (t + 1)·w) of the buffer. Such a write pattern (o, w, the instruction, block
// and barrier counts) is kept once in the launch's table, and each line of 128 bytes (32 granules)
// keeps 32 bytes:
//   - its state: the launch's tag, the number of the pattern that wrote it in that launch, and which
//     of its granules the pattern wrote; and a second such word (blocks 16 floats wide write a
//     line in two halves);
//   - its reader: the one block of that launch that read it, and which of its granules;
//   - which granules were written before the launch (by the host, or by earlier launches: all that
//     initcheck needs of them, as accesses of different launches are never a race).
// A line whose writes follow no such patterns (two instructions, threads writing over each other,
// pieces smaller than a granule) is kept in full, a GlobalCell a granule, for the rest of its
// launch; a line that several blocks read keeps each granule's reader (2 bytes: packed_reader).
// Both are given back when the launch ends. So a kernel that writes one buffer and reads another
// costs 0.25 bytes a byte of each; a matrix that every block of a multiply reads, 0.75.
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "emulator/observers/checker.hpp"

namespace gpulab::emulated {

// A granule's record, unpacked (checker.cpp says how each word is made). Zero: never written.
struct GlobalCell {
  std::uint64_t writer;  // who wrote it last: the writing instruction, the launch's tag, block, thread, bytes
  std::uint32_t sync;    // the writer's barrier and __syncwarp counts when it wrote (their low 20 and 12 bits)
  std::uint32_t reader;  // the block that read it last, with its launch's tag (bits 22-31)
};

namespace records::layout {

inline constexpr std::size_t kLineGranules = 32;  // 128 bytes of device memory a line
// A line's state word: bits 54-63 the tag of the launch that wrote it, 32-53 the number of its
// write pattern in that launch's table (or kFull, kBusy), 0-31 which granules the pattern wrote.
inline constexpr std::uint64_t kFull = 0x3FFFFF;  // kept in full: the GlobalCells hold its records
inline constexpr std::uint64_t kBusy = 0x3FFFFE;  // being changed to kFull by another worker
// A line's reader word: bits 32-63 the reader (tag and block), 0-31 which granules it read; a
// reader of the running launch with no granule: the readers are kept per granule.
inline constexpr std::uint64_t kReadersBusy = 1;  // (tag 0 is no launch's)

inline std::uint32_t tag_of(std::uint64_t state) { return static_cast<std::uint32_t>(state >> 54); }
inline std::uint64_t pattern_of(std::uint64_t state) { return state >> 32 & 0x3FFFFF; }
inline std::uint32_t written_of(std::uint64_t state) { return static_cast<std::uint32_t>(state); }
inline std::uint32_t tag_of_reader(std::uint32_t reader) { return reader >> 22; }
inline std::uint64_t make_state(std::uint32_t tag, std::uint64_t pattern, std::uint32_t written) {
  return std::uint64_t{tag} << 54 | pattern << 32 | written;
}

struct Line {
  std::uint64_t state;
  std::uint64_t second;  // a second pattern of the state's launch, as `state` (two blocks 16 floats wide
                         // write halves of a line), never kBusy or kFull: those are the state's
  std::uint64_t reader;
  std::uint32_t before;  // the granules written before the patterns' launch (initialised)
  std::uint32_t unused;
};

// Threads t of one block writing [origin + t·width, origin + (t + 1)·width) with one instruction
// between the same barriers (width a power of two, 4 or more): `writer` is their GlobalCell writer
// word without the thread's bits.
struct Pattern {
  std::int64_t origin;
  std::uint64_t writer;
  std::uint32_t width;
  std::uint32_t sync;
};
extern Pattern* patterns;  // the running launch's table

template <typename T>
T read_word(const T& word) {
  return std::atomic_ref(const_cast<T&>(word)).load(std::memory_order_acquire);
}

// Granule g's writer as the line's pattern (of the running launch) wrote it.
inline GlobalCell written_by(std::uint64_t pattern, std::size_t g) {
  const Pattern& p = patterns[pattern];
  const auto thread =
      static_cast<std::uint64_t>(static_cast<std::int64_t>(g) * 4 - p.origin) >> std::countr_zero(p.width);
  return GlobalCell{p.writer | thread << 4, p.sync, 0};
}

// A reader (checker.hpp's reader_tag: the launch's tag, bits 22-31, and the block's number's low 15
// bits) as a line that several blocks read keeps it per granule, in two bytes: 0 for none. Such
// records are given back when their launch ends, so the tag is the running launch's.
inline std::uint16_t packed_reader(std::uint32_t reader) {
  return static_cast<std::uint16_t>(0x8000 | (reader & 0x7FFF));
}
inline std::uint32_t unpacked_reader(std::uint16_t packed, std::uint32_t tag) {
  return packed == 0 ? 0 : tag << 22 | (packed & 0x7FFFu);
}

// Granule g's writer (and its barrier counts) from a line not kept in full, in the launch `tag`.
inline GlobalCell writer_in(const Line& line, std::uint64_t state, std::size_t g, std::uint32_t tag) {
  const std::uint32_t bit = 1u << g % kLineGranules;
  if ((written_of(state) & bit) != 0) {
    return tag_of(state) == tag ? written_by(pattern_of(state), g) : GlobalCell{check::kHostWriter, 0, 0};
  }
  if (const std::uint64_t second = read_word(line.second); (written_of(second) & bit) != 0) {
    return tag_of(second) == tag ? written_by(pattern_of(second), g) : GlobalCell{check::kHostWriter, 0, 0};
  }
  const bool before =
      (std::atomic_ref(const_cast<std::uint32_t&>(line.before)).load(std::memory_order_relaxed) & bit) != 0;
  return GlobalCell{before ? check::kHostWriter : 0, 0, 0};
}

}  // namespace records::layout

struct GlobalRecords {
  std::size_t lines = 0;
  records::layout::Line* line = nullptr;
  GlobalCell* cells = nullptr;       // per granule, for the lines kept in full
  std::uint16_t* readers = nullptr;  // per granule (packed_reader), for the lines several blocks read
  // Of the running launch:
  std::mutex mutex;
  std::vector<std::size_t> full;  // the lines kept in full
  bool readers_kept = false;
  bool listed = false;  // in the launch's list of buffers to tidy at its end (under that list's lock)
};

namespace records {

namespace layout {

// Granule g's reader (of the launch `tag`) from its line's reader word, which may say that the
// readers are kept per granule.
inline std::uint32_t reader_in(const GlobalRecords& r, std::uint64_t word, std::size_t g, std::uint32_t tag) {
  if (word >> 54 != tag) return 0;  // none, or another launch's
  const auto read = static_cast<std::uint32_t>(word);
  if (read == 0) return unpacked_reader(std::atomic_ref(r.readers[g]).load(std::memory_order_relaxed), tag);
  return (read >> g % kLineGranules & 1) != 0 ? static_cast<std::uint32_t>(word >> 32) : 0;
}

// A read by block `reader` of granule g in a line not kept in full whose words the caller read
// (neither being changed): its record before the read, with the read recorded — or false where a
// second block reads the line (read_slow keeps its readers per granule from then on). The reader
// word by a plain store, as a GlobalCell's reader was, not a compare-and-swap: where another
// worker's block changed it meanwhile, a read is forgotten — a race may go unseen, but no record
// names a block for a read it did not make.
inline bool read_in_line(GlobalRecords& r, Line& line, std::uint64_t state, std::uint64_t word, std::size_t g,
                         std::uint32_t reader, GlobalCell& cell) {
  const std::uint32_t tag = tag_of_reader(reader), bit = 1u << g % kLineGranules,
                      read = static_cast<std::uint32_t>(word);
  std::atomic_ref<std::uint64_t> shared_word(line.reader);
  cell = writer_in(line, state, g, tag);
  if (word >> 54 != tag) {  // the line's first reader in this launch
    shared_word.store(std::uint64_t{reader} << 32 | bit, std::memory_order_release);
  } else if (read == 0) {  // readers kept per granule
    std::atomic_ref<std::uint16_t> slot(r.readers[g]);
    const std::uint16_t before = slot.load(std::memory_order_relaxed);
    cell.reader = unpacked_reader(before, tag);
    if (before != packed_reader(reader)) slot.store(packed_reader(reader), std::memory_order_relaxed);
  } else if (word >> 32 == reader) {
    if ((read & bit) != 0) {
      cell.reader = reader;
    } else {
      shared_word.store(word | bit, std::memory_order_release);
    }
  } else {
    return false;
  }
  return true;
}

}  // namespace layout

GlobalCell read_slow(GlobalRecords& r, std::size_t g, std::uint32_t reader);
GlobalCell load_slow(GlobalRecords& r, std::size_t g, std::uint32_t tag);

// The records of a buffer of `bytes` (addresses only until touched); drop gives them back.
GlobalRecords* make(std::size_t bytes);
void drop(GlobalRecords* r) noexcept;

// Launch number `launch` begins (its patterns a table of their own); it ends: the lines kept in
// full and the readers kept per granule are given back (what is written stays known).
void begin_launch(std::uint32_t launch);
void end_launch();

// Granule g's record as the running launch (tag `tag`) sees it. Inline for a line not kept in full.
inline GlobalCell load(GlobalRecords& r, std::size_t g, std::uint32_t tag) {
  using namespace layout;
  Line& line = r.line[g / kLineGranules];
  const std::uint64_t state = read_word(line.state), word = read_word(line.reader);
  if (pattern_of(state) >= kBusy || word == kReadersBusy) [[unlikely]] {
    return load_slow(r, g, tag);
  }
  GlobalCell cell = writer_in(line, state, g, tag);
  cell.reader = reader_in(r, word, g, tag);
  return cell;
}
// Granule g written by the running thread: `writer` and `sync` as a GlobalCell holds them; the
// access that wrote it covered bytes [offset, offset + size) of the buffer.
void store_write(GlobalRecords& r, std::size_t g, std::uint64_t writer, std::uint32_t sync, std::uintptr_t offset,
                 std::size_t size);
// Granule g's record as a read by block `reader` (checker.hpp's reader_tag) finds it, and the read
// recorded. Inline for what most reads find: a line not kept in full, read by this block alone or
// keeping its readers per granule.
inline GlobalCell read(GlobalRecords& r, std::size_t g, std::uint32_t reader) {
  using namespace layout;
  Line& line = r.line[g / kLineGranules];
  const std::uint64_t state = read_word(line.state), word = read_word(line.reader);
  GlobalCell cell;
  if (pattern_of(state) < kBusy && word != kReadersBusy && read_in_line(r, line, state, word, g, reader, cell)) {
    return cell;
  }
  return read_slow(r, g, reader);  // a line kept in full or being changed, or a second block reads it
}
// Granule g counts as written (an atomic's first touch of memory nothing wrote).
void mark_written(GlobalRecords& r, std::size_t g);
// Granules [first, last] written by the host (a copy or a fill, between launches).
void host_wrote(GlobalRecords& r, std::size_t first, std::size_t last);
// The launch tags come round (checker.cpp): every record of a launch becomes "written before".
void forget_launches(GlobalRecords& r);

// Host memory the buffer's records hold now (pages touched), for tests and benchmarks.
std::size_t resident_bytes(const GlobalRecords& r);

}  // namespace records

}  // namespace gpulab::emulated
