// What the host handed to the device while the grader watched: see upload_watch.hpp.
#include "emulator/observers/upload_watch.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

namespace gpulab::emulated::rt {

namespace {

constexpr std::size_t kWindow = 32;           // bytes: eight floats
constexpr std::size_t kMostKept = 512 << 20;  // beyond this, uploads are not kept

struct OutputCoverage {
  const unsigned char* begin;
  std::size_t bytes;
  std::vector<bool> from_device;
};

struct Watch {
  bool on = false;
  std::vector<HostRange> inputs;
  std::vector<OutputCoverage> outputs;
  std::vector<std::vector<unsigned char>> kept;
  std::size_t kept_bytes = 0;
  std::vector<HostRange> visible;  // host-visible buffers made while watching, still live
};

std::mutex watch_mutex;
Watch watch;

bool inside(const void* p, const HostRange& r) {
  const auto a = reinterpret_cast<std::uintptr_t>(p), b = reinterpret_cast<std::uintptr_t>(r.first);
  return a >= b && a < b + r.second;
}

void keep(const void* src, std::size_t bytes) {
  if (bytes == 0 || watch.kept_bytes + bytes > kMostKept) return;
  const auto* from = static_cast<const unsigned char*>(src);
  watch.kept.emplace_back(from, from + bytes);
  watch.kept_bytes += bytes;
}

std::uint64_t hash(const unsigned char* p, std::size_t bytes) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

// A window that holds one value repeated (zeros, the poison) says nothing about where it came from.
bool one_value(const unsigned char* p, std::size_t bytes) {
  for (std::size_t i = 4; i + 4 <= bytes; i += 4) {
    if (std::memcmp(p, p + i, 4) != 0) return false;
  }
  return true;
}

}  // namespace

void watch_uploads(const std::vector<HostRange>& grader_inputs, const std::vector<HostRange>& host_outputs) {
  std::lock_guard lock(watch_mutex);
  watch = Watch{};
  watch.on = true;
  watch.inputs = grader_inputs;
  for (const auto& [p, bytes] : host_outputs)
    watch.outputs.push_back({static_cast<const unsigned char*>(p), bytes, std::vector<bool>(bytes, false)});
}

void stop_watching_uploads() {
  std::lock_guard lock(watch_mutex);
  for (const HostRange& r : watch.visible) keep(r.first, r.second);
  watch.visible.clear();
  watch.on = false;
}

double share_uploaded(const void* output, std::size_t bytes) {
  std::lock_guard lock(watch_mutex);
  const std::size_t window = bytes < kWindow ? bytes / 4 * 4 : kWindow;
  if (window == 0) return 0;
  std::vector<std::uint64_t> seen;
  auto add = [&](const unsigned char* p, std::size_t n) {
    for (std::size_t at = 0; at + window <= n; at += 4) seen.push_back(hash(p + at, window));
  };
  for (const auto& k : watch.kept) add(k.data(), k.size());
  for (const HostRange& r : watch.visible) add(static_cast<const unsigned char*>(r.first), r.second);
  std::sort(seen.begin(), seen.end());
  const auto* out = static_cast<const unsigned char*>(output);
  std::size_t telling = 0, found = 0;
  for (std::size_t at = 0; at + window <= bytes; at += window) {
    if (window > 4 && one_value(out + at, window)) continue;
    ++telling;
    found += std::binary_search(seen.begin(), seen.end(), hash(out + at, window)) ? 1 : 0;
  }
  return telling == 0 ? 0 : static_cast<double>(found) / static_cast<double>(telling);
}

std::size_t bytes_written_by_host(const void* output, std::size_t bytes, unsigned char poison) {
  std::lock_guard lock(watch_mutex);
  for (const OutputCoverage& o : watch.outputs) {
    if (o.begin != output) continue;
    std::size_t host = 0;
    for (std::size_t i = 0; i < std::min(bytes, o.bytes); ++i) host += !o.from_device[i] && o.begin[i] != poison;
    return host;
  }
  return 0;
}

namespace uploads {

void copied(void* dst, const void* src, std::size_t bytes, bool dst_device, bool src_device) {
  std::lock_guard lock(watch_mutex);
  if (!watch.on) return;
  if (dst_device && !src_device) {
    const bool input =
        std::any_of(watch.inputs.begin(), watch.inputs.end(), [&](const HostRange& r) { return inside(src, r); });
    if (!input) keep(src, bytes);
  }
  if (src_device && !dst_device) {
    for (OutputCoverage& o : watch.outputs) {
      const auto* d = static_cast<const unsigned char*>(dst);
      for (std::size_t i = 0; i < bytes; ++i) {
        if (d + i >= o.begin && d + i < o.begin + o.bytes)
          o.from_device[static_cast<std::size_t>(d + i - o.begin)] = true;
      }
    }
  }
}

void host_visible(const void* p, std::size_t bytes) {
  std::lock_guard lock(watch_mutex);
  if (watch.on) watch.visible.emplace_back(p, bytes);
}

void releasing(const void* p) {
  std::lock_guard lock(watch_mutex);
  if (!watch.on) return;
  const auto found =
      std::find_if(watch.visible.begin(), watch.visible.end(), [&](const HostRange& r) { return r.first == p; });
  if (found == watch.visible.end()) return;
  keep(found->first, found->second);
  watch.visible.erase(found);
}

}  // namespace uploads

}  // namespace gpulab::emulated::rt
