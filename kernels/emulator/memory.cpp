#include "emulator/memory.hpp"

#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <string>

namespace gpulab::emulated {

namespace {

constexpr unsigned char kGuardPattern = 0xA5;

struct Allocation {
  std::size_t bytes;          // what the buffer holds
  std::size_t padded;         // its bytes rounded up to the alignment
  std::size_t element_bytes;  // to name the element an overrun reached
  std::string name;
};

struct Registry {
  std::mutex mutex;
  std::map<unsigned char*, Allocation> live;  // by the address the kernel sees
};

Registry& registry() {
  static Registry r;
  return r;
}

std::size_t padded_size(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

// The changed bytes of one guard: whether any, and the first and last offset (from its start).
struct Damage {
  std::size_t count = 0, first = 0, last = 0;
};

Damage inspect(unsigned char* guard, std::size_t size) {
  Damage d;
  for (std::size_t i = 0; i < size; ++i) {
    if (guard[i] != kGuardPattern) {
      if (d.count++ == 0) d.first = i;
      d.last = i;
      guard[i] = kGuardPattern;  // repaired, so the next launch is judged on its own
    }
  }
  return d;
}

// Offsets are relative to the buffer's start (negative before it). A written byte can happen to
// equal the guard pattern, so the message names whole elements, from the first changed byte to
// the last.
std::string describe(const Allocation& a, const char* where, long first, long last) {
  const auto element = [&](long offset) {
    const auto size = static_cast<long>(a.element_bytes);
    return offset >= 0 ? offset / size : -((-offset + size - 1) / size);
  };
  const std::string name = a.name.empty() ? std::string("(unnamed)") : "'" + a.name + "'";
  const long e0 = element(first), e1 = element(last);
  return "checked mode: the kernel wrote " + std::string(where) + " of buffer " + name + " (" +
         std::to_string(a.bytes / a.element_bytes) + " elements of " + std::to_string(a.element_bytes) + " bytes): " +
         (e0 == e1 ? "element " + std::to_string(e0) : "elements " + std::to_string(e0) + " to " + std::to_string(e1)) +
         ". On a GPU this write would corrupt other data or fail with an illegal address: is every index checked "
         "against the size?";
}

}  // namespace

void* GuardedMemory::allocate(std::size_t bytes, const char* name, std::size_t element_bytes) {
  const std::size_t padded = padded_size(bytes);
  auto* raw = static_cast<unsigned char*>(std::aligned_alloc(256, kGuardBytes + padded + kGuardBytes));
  if (raw == nullptr) throw std::bad_alloc();
  unsigned char* user = raw + kGuardBytes;
  std::memset(raw, kGuardPattern, kGuardBytes);
  std::memset(user + bytes, kGuardPattern, padded - bytes + kGuardBytes);
  std::lock_guard lock(registry().mutex);
  registry().live[user] = {bytes, padded, element_bytes, name};
  return user;
}

void GuardedMemory::free(void* p) noexcept {
  auto* user = static_cast<unsigned char*>(p);
  {
    std::lock_guard lock(registry().mutex);
    registry().live.erase(user);
  }
  std::free(user - kGuardBytes);
}

void* HostMemory::allocate(std::size_t bytes, const char* /*name*/, std::size_t /*element_bytes*/) {
  void* p = std::aligned_alloc(256, padded_size(bytes));
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void HostMemory::free(void* p) noexcept { std::free(p); }

BufferLookup find_buffer(const void* p) {
  const auto* address = static_cast<const unsigned char*>(p);
  std::lock_guard lock(registry().mutex);
  auto& live = registry().live;
  auto it = live.upper_bound(const_cast<unsigned char*>(address));
  if (it == live.begin()) return {};
  --it;
  const std::size_t offset = static_cast<std::size_t>(address - it->first);
  if (offset >= it->second.bytes && !(offset == 0 && it->second.bytes == 0)) return {};
  return {true, offset, it->second.bytes, it->second.name};
}

bool is_buffer_start(const void* p) {
  std::lock_guard lock(registry().mutex);
  return registry().live.count(static_cast<unsigned char*>(const_cast<void*>(p))) != 0;
}

std::size_t live_device_bytes() {
  std::lock_guard lock(registry().mutex);
  std::size_t total = 0;
  for (const auto& [user, a] : registry().live) total += a.bytes;
  return total;
}

std::string check_guard_zones() {
  std::lock_guard lock(registry().mutex);
  std::string first;  // every guard is inspected (and repaired); the first damage is reported
  for (auto& [user, a] : registry().live) {
    const Damage before = inspect(user - kGuardBytes, kGuardBytes);
    const Damage after = inspect(user + a.bytes, a.padded - a.bytes + kGuardBytes);
    if (!first.empty()) continue;
    const auto guard = static_cast<long>(kGuardBytes), end = static_cast<long>(a.bytes);
    if (before.count > 0) {
      first = describe(a, "before the start", static_cast<long>(before.first) - guard,
                       static_cast<long>(before.last) - guard);
    } else if (after.count > 0) {
      first = describe(a, "past the end", end + static_cast<long>(after.first), end + static_cast<long>(after.last));
    }
  }
  return first;
}

}  // namespace gpulab::emulated
