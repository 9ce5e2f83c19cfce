#pragma once
// Emulated device memory. Every buffer lives in one large range of reserved addresses (the
// arena), on pages of its own with unmapped gaps between buffers, and is never moved: so the
// checked mode (emulator/observers/checker.hpp) can tell for any address a kernel touches whether it is
// device memory, which buffer holds it, how far past which buffer's end it lies, or which freed
// buffer it was — and an access no check saw (code built without checked mode) faults on an
// unmapped page instead of corrupting the program. Freed ranges are not handed out again until
// the arena has been gone through once, so a use after free names the freed buffer.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "base/device_buffer.hpp"

namespace gpulab::emulated {

struct GlobalRecords;  // global_records.hpp

struct Allocation {
  std::uintptr_t begin = 0;
  std::size_t bytes = 0;
  std::size_t element_bytes = 1;
  std::string name;                  // the pointer's name, or where it was allocated
  std::string site;                  // file:line of the allocation, when known
  GlobalRecords* records = nullptr;  // racecheck's and initcheck's, in the checked mode
  bool freed = false;
  bool managed = false;  // cudaMallocManaged: the host may touch it
  std::uintptr_t end() const { return begin + bytes; }
};

// The arena's bounds: an address in [arena_begin, arena_end) is device memory, live or not.
extern std::uintptr_t arena_begin, arena_end;
inline bool in_arena(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  return a >= arena_begin && a < arena_end;
}
// Changes whenever a buffer is allocated or freed (lookups cached by the checker compare it).
extern std::atomic<std::uint64_t> arena_version;

// Allocates device memory (throws std::bad_alloc when the arena is full).
void* allocate_device(std::size_t bytes, const std::string& name, std::size_t element_bytes,
                      const std::string& site = "");
void free_device(void* p) noexcept;
// The live buffer holding address a, or nullptr.
const Allocation* find_allocation(std::uintptr_t a);
// For reports: the live or freed buffer nearest to a (the one holding it, else the closest).
struct Nearest {
  const Allocation* allocation = nullptr;  // a copy's fields are valid until the next allocation or free
  Allocation copy;
};
Nearest nearest_allocation(std::uintptr_t a);
// Host-side writes (copies, memsets): the bytes are initialised for initcheck.
void note_host_write(const void* p, std::size_t bytes);
// After a launch that ran without checks: every live buffer loses its racecheck and initcheck
// records, as what that launch wrote is unknown (bounds are still checked).
void forget_writers();
// The launch tags come round again (checker.cpp): every live buffer's writers become "written
// before" (initialised, no launch's) and its readers are dropped.
void forget_launch_tags();
// The host guard (GPU Lab's grader, around the learner's function): while it is on, device memory
// is out of host code's reach as on a GPU — its pages are closed, a host access faults and is
// reported (scheduler.cpp) — and the runtime opens it for the length of its own copies, fills and
// launches (DeviceMemoryOpen). Managed buffers stay open, as the host may touch them.
void guard_from_host(bool on);
bool host_guard_on();
void mark_managed(const void* p);
class DeviceMemoryOpen {
 public:
  DeviceMemoryOpen();
  ~DeviceMemoryOpen();
  DeviceMemoryOpen(const DeviceMemoryOpen&) = delete;
  DeviceMemoryOpen& operator=(const DeviceMemoryOpen&) = delete;

 private:
  bool opened_ = false;
};

// Buffers still allocated, for the leak note at exit.
std::string describe_leaks();

struct GuardedMemory {
  static void* allocate(std::size_t bytes, const char* name, std::size_t element_bytes) {
    return allocate_device(bytes, name, element_bytes);
  }
  static void free(void* p) noexcept { free_device(p); }
  static void upload(void* device, const void* host, std::size_t bytes) {
    std::memcpy(device, host, bytes);
    note_host_write(device, bytes);
  }
  static void download(void* host, const void* device, std::size_t bytes) { std::memcpy(host, device, bytes); }
  static void fill(void* dst, unsigned char value, std::size_t bytes) {
    std::memset(dst, value, bytes);
    note_host_write(dst, bytes);
  }
};

// Plain host memory, for staging the inputs of emulated runs (the emulator needs no pinning).
struct HostMemory {
  static void* allocate(std::size_t bytes, const char* name, std::size_t element_bytes);
  static void free(void* p) noexcept;
};

template <typename T>
using DeviceBuffer = BasicDeviceBuffer<T, GuardedMemory>;

// The live buffer that holds [p, p + bytes), or why there is none ("" and the buffer's size when
// there is): what cudaMemcpy and cudaFree check a device pointer against.
struct BufferLookup {
  bool found = false;      // p lies inside a live buffer
  std::size_t offset = 0;  // of p from the buffer's start
  std::size_t size = 0;    // the buffer's bytes
  std::string name;
};
BufferLookup find_buffer(const void* p);
// Whether p is the start of a live buffer (what cudaFree takes).
bool is_buffer_start(const void* p);
std::size_t live_device_bytes();

}  // namespace gpulab::emulated
