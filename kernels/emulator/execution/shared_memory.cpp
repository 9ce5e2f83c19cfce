#include "emulator/execution/shared_memory.hpp"

#include <sys/mman.h>

#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "emulator/observers/checker.hpp"

namespace gpulab::emulated::shared {

thread_local constinit Window* current_window = nullptr;
thread_local constinit std::uintptr_t window_begin = 0, window_end = 0;

namespace {

constexpr std::size_t kReserved = std::size_t{64} << 20;  // addresses only
constexpr std::size_t kLead = std::size_t{16} << 20;      // unmapped room before the variables
constexpr std::size_t kUsable = std::size_t{1} << 20;     // mapped: 227 KB dynamic + the static variables
constexpr std::size_t kRedZone = 256;                     // unused bytes after each variable
constexpr unsigned char kPoison = 0xFF;                   // shared memory before it is written: NaN, -1

std::uintptr_t round_up(std::uintptr_t n, std::uintptr_t to) { return (n + to - 1) / to * to; }

Window& window() {
  if (current_window != nullptr) return *current_window;
  auto* w = new Window;  // one per worker, for the process's life
  void* p = mmap(nullptr, kReserved, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  w->reserved_begin = reinterpret_cast<std::uintptr_t>(p);
  w->reserved_end = w->reserved_begin + kReserved;
  w->usable_begin = w->reserved_begin + kLead;
  w->usable_end = w->usable_begin + kUsable;
  if (mprotect(reinterpret_cast<void*>(w->usable_begin), kUsable, PROT_READ | PROT_WRITE) != 0) throw std::bad_alloc();
  w->arrays.reserve(16);
  current_window = w;
  window_begin = w->reserved_begin, window_end = w->reserved_end;
  return *w;
}

}  // namespace

void begin_block(std::size_t dynamic_bytes) {
  Window& w = window();
  if (check::tracking() && w.cells == nullptr) {  // racecheck's records, from the first launch that wants them
    void* cells = mmap(nullptr, kUsable / 4 * sizeof(Cell), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (cells == MAP_FAILED) throw std::bad_alloc();
    w.cells = static_cast<Cell*>(cells);
  }
  w.arrays.clear();
  w.arrays.push_back({w.usable_begin, dynamic_bytes, nullptr});
  std::memset(reinterpret_cast<void*>(w.usable_begin), kPoison, dynamic_bytes);
  w.next = round_up(w.usable_begin + dynamic_bytes, 128) + kRedZone * 4;
  w.dynamic_name = nullptr;
  w.dynamic_type = nullptr;
  w.dynamic_element_bytes = 1;
}

const Array* find(const Window& w, std::uintptr_t a, std::size_t size) {
  for (const Array& array : w.arrays) {
    if (a >= array.begin && a + size <= array.end()) return &array;
  }
  return nullptr;
}

const Array* nearest(const Window& w, std::uintptr_t a) {
  const Array* best = nullptr;
  std::uintptr_t best_distance = ~std::uintptr_t{0};
  for (const Array& array : w.arrays) {
    if (array.declaration == nullptr && array.bytes == 0) continue;
    // Past an end counts before before a start: overruns are the common mistake.
    const std::uintptr_t d = a < array.begin ? 2 * (array.begin - a) : a >= array.end() ? a - array.end() : 0;
    if (d < best_distance) best = &array, best_distance = d;
  }
  return best;
}

}  // namespace gpulab::emulated::shared

namespace gpulab::emulated::detail {

void* static_shared(const SharedDeclaration& declaration) {
  shared::Window& w = *shared::current_window;
  for (const shared::Array& array : w.arrays) {
    if (array.declaration == &declaration) return reinterpret_cast<void*>(array.begin);
  }
  // First met in this block: place it after the others, poisoned as a GPU's would hold garbage.
  const std::uintptr_t begin = shared::round_up(w.next, 128);
  if (begin + declaration.bytes > w.usable_end) {
    throw std::runtime_error("more static __shared__ memory than the emulator holds (" +
                             std::to_string(shared::kUsable / 1024) + " KB) at " + declaration.file + ":" +
                             std::to_string(declaration.line));
  }
  std::memset(reinterpret_cast<void*>(begin), shared::kPoison, declaration.bytes);
  w.arrays.push_back({begin, declaration.bytes, &declaration});
  w.next = begin + declaration.bytes + shared::kRedZone;
  return reinterpret_cast<void*>(begin);
}

void* dynamic_shared_memory(const char* name, const char* type, std::size_t element_bytes) {
  shared::Window& w = *shared::current_window;
  if (w.dynamic_name == nullptr) {
    w.dynamic_name = name;
    w.dynamic_type = type;
    w.dynamic_element_bytes = element_bytes;
  }
  return reinterpret_cast<void*>(w.usable_begin);
}

}  // namespace gpulab::emulated::detail
