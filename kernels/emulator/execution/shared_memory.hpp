#pragma once
// Shared memory on the emulator: each worker thread runs one block at a time, and the block's
// shared memory — the launch's dynamic shared memory and every static `__shared__` variable —
// is laid out in the worker's window: a range of addresses mostly unmapped, with the variables
// in the middle and unused room between them. So an index past a shared array's end lands in the
// window and the checked mode names the array it overran (where a GPU's memcheck sees only the
// block's whole shared memory), and never in the emulator's own state.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "emulator/language/cuda_language.hpp"

namespace gpulab::emulated::shared {

// What racecheck remembers of one 4-byte granule: its last writer and its readers since.
struct Cell {
  std::uint64_t writer, writer_sync, writer_where;
  std::uint64_t reader, reader_sync, reader_where;
};

struct Array {
  std::uintptr_t begin = 0;
  std::size_t bytes = 0;
  const detail::SharedDeclaration* declaration = nullptr;  // null: the dynamic shared memory
  std::uintptr_t end() const { return begin + bytes; }
};

struct Window {
  std::uintptr_t reserved_begin = 0, reserved_end = 0;  // every address here is "shared memory"
  std::uintptr_t usable_begin = 0, usable_end = 0;      // the mapped middle
  Cell* cells = nullptr;                                // one per granule of the mapped middle
  std::vector<Array> arrays;                            // this block's: [0] the dynamic shared memory
  std::uintptr_t next = 0;                              // where the next static variable goes
  const char* dynamic_name = nullptr;                   // as the kernel's extern __shared__ names it
  const char* dynamic_type = nullptr;
  std::size_t dynamic_element_bytes = 1;
};

// This worker's window (null before its first block), and its reserved addresses (0 and 0 then).
extern thread_local constinit Window* current_window;
extern thread_local constinit std::uintptr_t window_begin, window_end;

// A new block: no static variables yet, the dynamic shared memory poisoned.
void begin_block(std::size_t dynamic_bytes);

// The array that holds [a, a + size), or null.
const Array* find(const Window& w, std::uintptr_t a, std::size_t size);
// The array nearest to a, for a report (null when there is none).
const Array* nearest(const Window& w, std::uintptr_t a);

}  // namespace gpulab::emulated::shared
