#include "emulator/runtime/memory.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <map>
#include <mutex>
#include <new>
#include <string>

#include "emulator/observers/checker.hpp"
#include "emulator/observers/global_records.hpp"

namespace gpulab::emulated {

std::uintptr_t arena_begin = 0, arena_end = 0;
std::atomic<std::uint64_t> arena_version{0};

namespace {

constexpr std::size_t kPage = 4096;
constexpr std::size_t kGap = 64 * 1024;  // unmapped addresses between two buffers
// The first buffer starts this far into the arena, so an index far below a buffer's start still
// lands in the arena (and is reported) rather than in the program's own memory.
constexpr std::uintptr_t kLead = std::uintptr_t{1} << 36;

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

struct Arena {
  std::mutex mutex;
  std::map<std::uintptr_t, Allocation*> live;  // by start address
  std::deque<Allocation*> freed;               // the most recent, for use-after-free reports
  std::uintptr_t cursor = 0;                   // where the next buffer's pages start
  std::size_t live_bytes = 0;

  Arena() {
    // Addresses only: no memory until a buffer is allocated. 1 TiB if the system allows, less if not.
    for (std::size_t size = std::size_t{1} << 40; size >= (std::size_t{1} << 34); size >>= 2) {
      void* p = mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (p == MAP_FAILED) continue;
      arena_begin = reinterpret_cast<std::uintptr_t>(p);
      arena_end = arena_begin + size;
      cursor = arena_begin + std::min<std::uintptr_t>(kLead, size / 4);
      return;
    }
  }

  // Page-aligned room for `pages` bytes: after the last buffer, or, once the arena has been gone
  // through, in the first gap between live buffers.
  std::uintptr_t place(std::size_t pages) {
    if (cursor + pages + kGap <= arena_end) return std::exchange(cursor, cursor + pages + kGap);
    std::uintptr_t at = arena_begin + std::min<std::uintptr_t>(kLead, (arena_end - arena_begin) / 4);
    for (const auto& [start, a] : live) {
      const std::uintptr_t page_start = start / kPage * kPage;
      if (at + pages + kGap <= page_start) break;
      at = round_up(a->end(), kPage) + kGap;
    }
    if (at + pages + kGap > arena_end) throw std::bad_alloc();
    while (!freed.empty()) {  // those ranges may now be handed out again: forget them
      delete freed.front();
      freed.pop_front();
    }
    cursor = at + pages + kGap;
    return at;
  }
};

Arena& arena() {
  static Arena* a = new Arena;  // never destroyed: kernels and exit-time checks may still look
  return *a;
}

// The host guard's state (under the arena's mutex): on, and how many runtime calls hold it open.
std::atomic<bool> guarded{false};
std::atomic<int> open_depth{0};
struct sigaction before_guard {};  // the SIGSEGV handler before the guard's, for faults not its own

// A host access to closed device memory: reported in the checked mode's words, and the program
// ends (as on a GPU, where it is a segmentation fault). Any other fault goes to the handler before.
void on_host_fault(int signal, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  if (!guarded || open_depth > 0 || address < arena_begin || address >= arena_end) {
    sigaction(signal, &before_guard, nullptr);
    return;  // the access runs again, under that handler
  }
  const auto* uc = static_cast<const ucontext_t*>(context);
  const bool write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
  const Nearest n = nearest_allocation(address);
  std::string what = "device memory";
  if (n.allocation != nullptr && address < n.copy.begin && n.copy.begin - address <= 64) {
    // What free() or delete reads first: the heap's header just before the pointer.
    what = "device memory " + std::to_string(n.copy.begin - address) + " bytes before '" + n.copy.name +
           "' — free() or delete on a pointer from cudaMalloc? Device memory is freed with cudaFree";
  } else if (n.allocation != nullptr && address >= n.copy.begin && address < n.copy.end()) {
    const std::size_t offset = address - n.copy.begin;
    const std::size_t count = n.copy.bytes / n.copy.element_bytes;
    what = "element " + std::to_string(offset / n.copy.element_bytes) + " of '" + n.copy.name + "' (" +
           std::to_string(count) + (count == 1 ? " element)" : " elements)");
  }
  const std::string report =
      "========= Host code touched device memory\n"
      "=========     Invalid host " +
      std::string(write ? "write of " : "read of ") + what +
      ": a pointer from cudaMalloc, dereferenced by host code\n"
      "=========     On a GPU this is a segmentation fault: host code cannot reach device memory. Copy it to host "
      "memory with cudaMemcpy first (or allocate it with cudaMallocManaged).\n";
  (void)!::write(2, report.data(), report.size());
  _exit(5);
}

// The pages a buffer lies on.
std::pair<void*, std::size_t> pages_of(const Allocation& a) {
  const std::size_t span = std::max<std::size_t>(256, round_up(a.bytes, 256));
  const std::uintptr_t page = a.begin / kPage * kPage;
  return {reinterpret_cast<void*>(page), round_up(a.begin + span, kPage) - page};
}

void set_pages(Arena& ar, int protection) {
  for (const auto& [start, a] : ar.live) {
    if (a->managed) continue;
    const auto [page, bytes] = pages_of(*a);
    mprotect(page, bytes, protection);
  }
}

GlobalRecords* make_records(std::size_t bytes) {
  if (check::level() != check::Level::full || bytes == 0) return nullptr;
  return records::make(bytes);
}

void drop_records(Allocation& a) { records::drop(std::exchange(a.records, nullptr)); }

}  // namespace

void* allocate_device(std::size_t bytes, const std::string& name, std::size_t element_bytes, const std::string& site) {
  Arena& ar = arena();
  if (arena_begin == 0) throw std::bad_alloc();
  // cudaMalloc's alignment is 256 bytes; the buffer ends where its last page ends, so a step past
  // its end (rounded up to 256) is on an unmapped page.
  const std::size_t span = std::max<std::size_t>(256, round_up(bytes, 256));
  const std::size_t pages = round_up(span, kPage);
  auto* a = new Allocation;
  a->bytes = bytes;
  a->element_bytes = std::max<std::size_t>(1, element_bytes);
  a->name = name;
  a->site = site;
  std::lock_guard lock(ar.mutex);
  const std::uintptr_t at = ar.place(pages);
  if (mprotect(reinterpret_cast<void*>(at), pages, PROT_READ | PROT_WRITE) != 0) {
    delete a;
    throw std::bad_alloc();
  }
  a->begin = at + pages - span;
  try {
    a->records = make_records(bytes);
  } catch (...) {
    mprotect(reinterpret_cast<void*>(at), pages, PROT_NONE);
    delete a;
    throw;
  }
  ar.live[a->begin] = a;
  ar.live_bytes += bytes;
  arena_version.fetch_add(1);
  if (guarded && open_depth == 0) mprotect(reinterpret_cast<void*>(at), pages, PROT_NONE);
  return reinterpret_cast<void*>(a->begin);
}

void guard_from_host(bool on) {
  static const bool installed = [] {
    struct sigaction action {};
    action.sa_sigaction = on_host_fault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &before_guard);
    return true;
  }();
  (void)installed;
  Arena& ar = arena();
  std::lock_guard lock(ar.mutex);
  if (guarded == on) return;
  guarded = on;
  open_depth = 0;
  set_pages(ar, on ? PROT_NONE : PROT_READ | PROT_WRITE);
}

bool host_guard_on() { return guarded; }

void mark_managed(const void* p) {
  Arena& ar = arena();
  std::lock_guard lock(ar.mutex);
  const auto it = ar.live.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == ar.live.end()) return;
  it->second->managed = true;
  const auto [page, bytes] = pages_of(*it->second);
  mprotect(page, bytes, PROT_READ | PROT_WRITE);
}

DeviceMemoryOpen::DeviceMemoryOpen() {
  if (!guarded) return;
  Arena& ar = arena();
  std::lock_guard lock(ar.mutex);
  opened_ = true;
  if (open_depth++ == 0) set_pages(ar, PROT_READ | PROT_WRITE);
}

DeviceMemoryOpen::~DeviceMemoryOpen() {
  if (!opened_) return;
  Arena& ar = arena();
  std::lock_guard lock(ar.mutex);
  if (guarded && --open_depth == 0) set_pages(ar, PROT_NONE);
}

void free_device(void* p) noexcept {
  Arena& ar = arena();
  std::lock_guard lock(ar.mutex);
  const auto it = ar.live.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == ar.live.end()) return;
  Allocation* a = it->second;
  ar.live.erase(it);
  ar.live_bytes -= a->bytes;
  const auto [page, pages] = pages_of(*a);
  madvise(page, pages, MADV_DONTNEED);
  mprotect(page, pages, PROT_NONE);
  drop_records(*a);
  a->freed = true;
  ar.freed.push_back(a);
  if (ar.freed.size() > 4096) {
    delete ar.freed.front();
    ar.freed.pop_front();
  }
  arena_version.fetch_add(1);
}

const Allocation* find_allocation(std::uintptr_t address) {
  Arena& ar = arena();
  std::lock_guard lock(ar.mutex);
  auto it = ar.live.upper_bound(address);
  if (it == ar.live.begin()) return nullptr;
  --it;
  const Allocation* a = it->second;
  return address < a->end() || (address == a->begin && a->bytes == 0) ? a : nullptr;
}

Nearest nearest_allocation(std::uintptr_t address) {
  Arena& ar = arena();
  std::lock_guard lock(ar.mutex);
  const Allocation* best = nullptr;
  std::uintptr_t best_distance = ~std::uintptr_t{0};
  const auto consider = [&](const Allocation* a) {
    if (a == nullptr) return;
    const std::uintptr_t d = address < a->begin ? a->begin - address : address >= a->end() ? address - a->end() + 1 : 0;
    // A freed buffer counts only when the address is inside it (a use after free).
    if (a->freed && d != 0) return;
    if (d < best_distance || (d == best_distance && a->freed && best != nullptr && !best->freed)) {
      best = a, best_distance = d;
    }
  };
  auto it = ar.live.upper_bound(address);
  if (it != ar.live.end()) consider(it->second);
  if (it != ar.live.begin()) consider(std::prev(it)->second);
  for (const Allocation* a : ar.freed) consider(a);
  Nearest n;
  if (best != nullptr) {
    n.allocation = best;
    n.copy = *best;
    n.copy.records = nullptr;
  }
  return n;
}

void note_host_write(const void* p, std::size_t bytes) {
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  if (bytes == 0 || begin < arena_begin || begin >= arena_end) return;
  const Allocation* a = find_allocation(begin);
  if (a == nullptr || a->records == nullptr) return;
  records::host_wrote(*a->records, (begin - a->begin) / 4, (begin - a->begin + bytes - 1) / 4);
}

void forget_writers() {
  Arena& ar = arena();
  std::lock_guard lock(ar.mutex);
  for (const auto& [start, a] : ar.live) drop_records(*a);
}

void forget_launch_tags() {
  Arena& ar = arena();
  std::lock_guard lock(ar.mutex);
  for (const auto& [start, a] : ar.live) {
    if (a->records != nullptr) records::forget_launches(*a->records);
  }
}

std::string describe_leaks() {
  Arena& ar = arena();
  std::lock_guard lock(ar.mutex);
  std::string text;
  std::size_t total = 0;
  for (const auto& [start, a] : ar.live) {
    if (a->site.empty()) continue;  // the lessons' own buffers are freed by their owners
    total += a->bytes;
    text += "=========     " + std::to_string(a->bytes) + " bytes in '" + a->name + "', allocated at " + a->site + "\n";
  }
  if (text.empty()) return "";
  return "========= Note: " + std::to_string(total) +
         " bytes of device memory were never freed (cudaFree), as compute-sanitizer --leak-check full would say:\n" +
         text;
}

void* HostMemory::allocate(std::size_t bytes, const char* /*name*/, std::size_t /*element_bytes*/) {
  void* p = std::aligned_alloc(256, std::max<std::size_t>(256, round_up(bytes, 256)));
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void HostMemory::free(void* p) noexcept { std::free(p); }

BufferLookup find_buffer(const void* p) {
  const Allocation* a = find_allocation(reinterpret_cast<std::uintptr_t>(p));
  if (a == nullptr) return {};
  return {true, reinterpret_cast<std::uintptr_t>(p) - a->begin, a->bytes, a->name};
}

bool is_buffer_start(const void* p) {
  const Allocation* a = find_allocation(reinterpret_cast<std::uintptr_t>(p));
  return a != nullptr && a->begin == reinterpret_cast<std::uintptr_t>(p);
}

std::size_t live_device_bytes() {
  std::lock_guard lock(arena().mutex);
  return arena().live_bytes;
}

}  // namespace gpulab::emulated
