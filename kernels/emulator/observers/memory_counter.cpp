// Counting memory requests, sectors and bank conflicts as Nsight Compute does (memory_counter.hpp).
//
// Each worker writes down its block's accesses (thread, instruction, its warp's synchronisation
// interval, how many times that thread had run the instruction before in the interval, address,
// size) and costs them when the block ends: sorted by (warp, instruction, interval, k-th time), the
// accesses of one group are one warp request. Blocks' totals
// go into the launch's, under a lock, once per block.
#include "emulator/observers/memory_counter.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "emulator/execution/shared_memory.hpp"
#include "emulator/language/cuda_language.hpp"
#include "emulator/observers/checker.hpp"

namespace gpulab::emulated {

const char* to_string(MemoryKind kind) {
  static const char* const names[] = {"global loads", "global stores", "shared loads", "shared stores"};
  return names[static_cast<int>(kind)];
}

namespace memory_counter {

namespace {

constexpr std::uint64_t kMaxWarpsKept = 65536;

// A source line's (or instruction's) requests, with the costliest one kept for the pictures.
struct LineAccumulator {
  Traffic traffic;
  WarpRequest worst;
  void add(const Traffic& t, const WarpRequest& request) {
    if (traffic.requests == 0 || request.units > worst.units) worst = request;
    traffic += t;
  }
};
using LineKey = std::pair<const void*, int>;  // instruction, kind

struct State {
  std::mutex mutex;
  bool per_warp = false;
  std::string kernel;
  unsigned threads_per_block = 0;
  std::uint64_t dynamic_shared = 0, static_shared = 0;
  bool keep_warps = false;  // this launch's warps are kept (its kernel's first launch)
  std::map<std::pair<std::uint64_t, unsigned>, WarpTraffic> warps;
  std::vector<KernelTraffic> kernels;
  std::map<std::string, std::map<LineKey, LineAccumulator>> kernel_lines;  // by kernel, over its launches
};

State& state() {
  static State* s = new State;  // never destroyed: the exit-time report uses it
  return *s;
}

struct Access {
  const void* pc;
  std::uintptr_t address;
  std::uint32_t interval;  // the warp's synchronisations before it (barriers, __syncwarp()s): see sync_interval
  std::uint32_t time;      // how many times this thread ran the instruction before, in that interval
  std::uint16_t thread;
  std::uint8_t size;
  std::uint8_t kind;
  bool async_copy;  // a global load that is a cp.async's (next_load_is_async_copy)
};

// A thread's count of one instruction's runs, in the synchronisation interval it last ran it in.
struct Runs {
  const void* pc;
  std::uint32_t interval;
  std::uint32_t count;
};

// The running block's accesses, and how often each of its threads ran each instruction.
struct BlockLog {
  std::vector<Access> accesses;
  std::vector<std::vector<Runs>> runs;  // by thread
};
// (On the heap: a thread-local's own room is scarce where the emulator is a shared library, CMakeLists.txt.)
thread_local BlockLog& log = *new BlockLog;

// Which synchronisation interval of its warp the running thread is in: the block's barriers and
// the warp's __syncwarp()s so far (their low 20 and 12 bits). Every lane of a warp passes them
// together, so the lanes' k-th runs of an instruction are paired within an interval: a loop with a
// barrier in each iteration pairs the lanes of one iteration even where some lanes skip the access
// in early iterations (a scan's `if (t < d)` with d growing), which counting from the kernel's
// start would pair an iteration apart.
std::uint32_t sync_interval() {
  const std::uint64_t stamp = detail::sync_stamp();
  return static_cast<std::uint32_t>((stamp >> 32 & 0xFFFFFu) << 12 | (stamp & 0xFFFu));
}

std::uint32_t next_time(unsigned thread, const void* pc, std::uint32_t interval) {
  if (log.runs.size() <= thread) log.runs.resize(thread + 1);
  for (Runs& r : log.runs[thread]) {
    if (r.pc != pc) continue;
    if (r.interval != interval) r.interval = interval, r.count = 0;
    return r.count++;
  }
  log.runs[thread].push_back(Runs{pc, interval, 1});
  return 0;
}

// Shared memory serves a warp's request in phases of at most 128 bytes: the 32 lanes at once for
// 4-byte accesses, 16 at a time for 8-byte ones, 8 for 16-byte ones; a phase that asks for the same
// addresses as the one before it is served with it (Nsight Compute's counts on an H100 agree with
// this: lesson 05's vectorised and warp_tiled kernels, docs/benchmarks.md). A phase takes as many wavefronts as the
// most distinct 4-byte words one of the 32 banks must give (lanes reading one word share it); the fewest a request can
// take is one a phase, and what it takes beyond that is its bank conflicts. Returns (wavefronts, phases).
std::pair<std::uint64_t, std::uint64_t> shared_wavefronts(const Access* first, const Access* last) {
  unsigned widest = 0;
  for (const Access* a = first; a != last; ++a) widest = std::max<unsigned>(widest, a->size);
  const unsigned lanes_per_phase = lanes_per_shared_phase(widest);
  thread_local auto& phase_addresses = *new std::array<std::vector<std::uintptr_t>, 32>;  // (heap: as log)
  thread_local std::vector<std::uint64_t> words;
  for (auto& phase : phase_addresses) phase.clear();
  for (const Access* a = first; a != last; ++a) {
    phase_addresses[(a->thread % 32) / lanes_per_phase].push_back(a->address << 8 | a->size);
  }
  std::uint64_t wavefronts = 0, phases = 0;
  for (unsigned p = 0; p < 32 / lanes_per_phase; ++p) {
    std::vector<std::uintptr_t>& mine = phase_addresses[p];
    if (mine.empty()) continue;
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
    if (p > 0 && phase_addresses[p - 1] == mine) continue;  // the same addresses as the phase before: served with it
    words.clear();
    for (const std::uintptr_t packed : mine) {
      const std::uintptr_t address = packed >> 8, size = packed & 0xFF;
      for (std::uint64_t w = address >> 2; w <= (address + size - 1) >> 2; ++w) words.push_back(w);
    }
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    unsigned per_bank[32] = {};
    for (const std::uint64_t w : words) ++per_bank[w % 32];
    wavefronts += *std::max_element(std::begin(per_bank), std::end(per_bank));
    ++phases;
  }
  return {wavefronts, phases};
}

// The cost of one warp request: its accesses [first, last).
struct Cost {
  Traffic traffic;
  WarpRequest request;
};

// Global memory: the distinct 32-byte sectors the lanes' bytes fall in, and the fewest sectors
// the distinct bytes asked for could take. Returns (sectors, ideal).
std::pair<std::uint64_t, std::uint64_t> global_sectors(const Access* first, const Access* last) {
  thread_local std::vector<std::uint64_t> sectors;
  thread_local std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges;
  sectors.clear();
  ranges.clear();
  for (const Access* a = first; a != last; ++a) {
    for (std::uint64_t s = a->address >> 5; s <= (a->address + a->size - 1) >> 5; ++s) sectors.push_back(s);
    ranges.emplace_back(a->address, a->address + a->size);
  }
  std::sort(sectors.begin(), sectors.end());
  const auto distinct_sectors =
      static_cast<std::uint64_t>(std::unique(sectors.begin(), sectors.end()) - sectors.begin());
  // The bytes the request asks for, each once (lanes reading one address share it).
  std::sort(ranges.begin(), ranges.end());
  std::uint64_t distinct_bytes = 0;
  std::uintptr_t covered = 0;
  for (const auto& [begin, end] : ranges) {
    const std::uintptr_t from = std::max(begin, covered);
    if (end > from) distinct_bytes += end - from;
    covered = std::max(covered, end);
  }
  return {distinct_sectors, (distinct_bytes + 31) / 32};
}

// cp.async's 16-byte copies (LDGSTS.128) are not counted by sectors: Nsight Compute counts, for
// each pair of lanes (2k, 2k + 1), the 128-byte lines the pair's copies lie in — 32 contiguous bytes
// are one whether or not they straddle two sectors, and two pairs count a sector they share twice
// (an H200's counts for lanes copying 16-byte pieces at every offset: tools/memory-differences.txt).
std::uint64_t async_copy_sectors(const Access* first, const Access* last) {
  std::array<std::uint64_t, 32> line;  // per lane: its 128-byte line + 1, or 0
  line.fill(0);
  for (const Access* a = first; a != last; ++a) line[a->thread % 32] = (a->address >> 7) + 1;
  std::uint64_t sectors = 0;
  for (unsigned pair = 0; pair < 32; pair += 2) {
    const std::uint64_t even = line[pair], odd = line[pair + 1];
    sectors += (even != 0) + (odd != 0 && odd != even);
  }
  return sectors;
}

Cost cost(const Access* first, const Access* last, bool shared) {
  Cost c;
  std::uintptr_t lowest = first->address;
  for (const Access* a = first; a != last; ++a) {
    lowest = std::min(lowest, a->address);
    c.traffic.bytes += a->size;
  }
  c.traffic.requests = 1;
  std::tie(c.traffic.units, c.traffic.ideal) = shared ? shared_wavefronts(first, last) : global_sectors(first, last);
  if (first->async_copy && first->size == 16) c.traffic.units = async_copy_sectors(first, last);
  c.request.bytes_per_lane = first->size;
  c.request.offset.fill(-1);
  c.request.units = c.traffic.units;
  const std::uintptr_t base = lowest & ~std::uintptr_t{127};
  for (const Access* a = first; a != last; ++a) {
    c.request.offset[a->thread % 32] = static_cast<std::int64_t>(a->address - base);
  }
  return c;
}

}  // namespace

void start(bool per_warp) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.kernels.clear();
  s.kernel_lines.clear();
  s.per_warp = per_warp;
  active = true;
}

std::atomic<bool> active{false};

namespace {
thread_local constinit bool async_copy_next = false;
}

void next_load_is_async_copy() {
  if (counting()) async_copy_next = true;
}

namespace {

void note(std::uintptr_t address, unsigned size, bool write, bool shared, const void* pc) {
  if (!counting()) return;
  // (The copy's shared store may come first: the flag waits for its global load.)
  const bool async_copy = !write && !shared && std::exchange(async_copy_next, false);
  const unsigned thread = detail::running_linear();
  const MemoryKind kind = shared ? (write ? MemoryKind::shared_store : MemoryKind::shared_load)
                                 : (write ? MemoryKind::global_store : MemoryKind::global_load);
  const std::uint32_t interval = sync_interval();
  log.accesses.push_back({pc, address, interval, next_time(thread, pc, interval), static_cast<std::uint16_t>(thread),
                          static_cast<std::uint8_t>(std::min(size, 255u)), static_cast<std::uint8_t>(kind),
                          async_copy});
}

void begin_launch(const char* kernel, unsigned threads_per_block, std::uint64_t dynamic_shared_bytes) {
  State& s = state();
  if (!counting()) return;
  std::lock_guard lock(s.mutex);
  s.kernel = kernel;
  s.threads_per_block = threads_per_block;
  s.dynamic_shared = dynamic_shared_bytes;
  s.static_shared = 0;
  s.warps.clear();
  s.keep_warps = s.per_warp && std::none_of(s.kernels.begin(), s.kernels.end(),
                                            [&](const KernelTraffic& k) { return k.kernel == s.kernel; });
}

void end_block() {
  async_copy_next = false;  // (a copy stopped by a wild address before its load)
  if (!counting()) return;
  // The block's static __shared__ variables (the emulator lays out each block's anew).
  std::uint64_t static_shared = 0;
  if (const shared::Window* w = shared::current_window; w != nullptr) {
    for (const shared::Array& a : w->arrays) {
      if (a.declaration != nullptr) static_shared += a.bytes;
    }
  }
  const auto by_request = [](const Access& a, const Access& b) {
    return std::make_tuple(a.thread / 32, a.pc, a.kind, a.interval, a.time) <
           std::make_tuple(b.thread / 32, b.pc, b.kind, b.interval, b.time);
  };
  std::vector<Access>& all = log.accesses;
  std::sort(all.begin(), all.end(), by_request);
  std::map<LineKey, LineAccumulator> lines;
  std::map<unsigned, WarpTraffic> warps;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i + 1;
    while (j < all.size() && !by_request(all[i], all[j])) ++j;
    const bool shared = is_shared(static_cast<MemoryKind>(all[i].kind));
    const Cost c = cost(&all[i], &all[i] + (j - i), shared);
    lines[{all[i].pc, all[i].kind}].add(c.traffic, c.request);
    if (!shared) {
      WarpTraffic& w = warps[all[i].thread / 32u];
      ++w.requests;
      w.sectors += c.traffic.units;
    }
    i = j;
  }
  const std::uint64_t block = detail::current_block != nullptr ? detail::current_block->linear : 0;
  all.clear();
  for (auto& runs : log.runs) runs.clear();
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.static_shared = std::max(s.static_shared, static_shared);
  auto& kernel_lines = s.kernel_lines[s.kernel];
  for (const auto& [key, line] : lines) kernel_lines[key].add(line.traffic, line.worst);
  if (s.keep_warps) {
    for (auto [warp, w] : warps) {
      if (s.warps.size() >= kMaxWarpsKept) break;
      w.block = block;
      w.warp = warp;
      s.warps[{block, warp}] = w;
    }
  }
}

void end_launch() {
  State& s = state();
  if (!counting()) return;
  std::lock_guard lock(s.mutex);
  auto it =
      std::find_if(s.kernels.begin(), s.kernels.end(), [&](const KernelTraffic& k) { return k.kernel == s.kernel; });
  if (it == s.kernels.end()) {
    s.kernels.push_back({});
    it = s.kernels.end() - 1;
    it->kernel = s.kernel;
    it->threads_per_block = s.threads_per_block;
    it->static_shared_bytes = s.static_shared;
    it->dynamic_shared_bytes = s.dynamic_shared;
  }
  ++it->launches;
  if (s.keep_warps) {
    for (const auto& [key, w] : s.warps) it->warps.push_back(w);
  }
}

class Counter final : public observe::Observer {
 public:
  bool watches() const override { return counting(); }
  void begin_launch(const observe::LaunchShape& l) override {
    memory_counter::begin_launch(l.kernel, l.threads_per_block, l.dynamic_shared_bytes);
  }
  void access(const observe::MemoryAccess& a) override {
    if (!a.atomic) note(a.address, a.size, a.write, a.shared, a.pc);
  }
  void end_block() override { memory_counter::end_block(); }
  void end_launch() override { memory_counter::end_launch(); }
};

}  // namespace

observe::Observer& observer() {
  static Counter counter;
  return counter;
}

std::vector<KernelTraffic> stop() {
  State& s = state();
  std::vector<KernelTraffic> kernels;
  std::map<std::string, std::map<LineKey, LineAccumulator>> kernel_lines;
  {
    std::lock_guard lock(s.mutex);
    active = false;
    kernels = std::move(s.kernels);
    kernel_lines = std::move(s.kernel_lines);
    s.kernels.clear();
    s.kernel_lines.clear();
  }
  // Lines by their place in the source (an inlined helper's accesses may come from several
  // instructions of one line), costliest first: the most sectors or wavefronts.
  // The kernel's totals are its lines' (over all its launches).
  for (KernelTraffic& k : kernels) {
    std::map<std::pair<std::string, int>, LineAccumulator> by_place;
    for (const auto& [key, line] : kernel_lines[k.kernel]) {
      k.traffic[static_cast<std::size_t>(key.second)] += line.traffic;
      by_place[{check::where(key.first), key.second}].add(line.traffic, line.worst);
    }
    for (const auto& [place, line] : by_place) {
      k.lines.push_back({place.first, static_cast<MemoryKind>(place.second), line.traffic, line.worst});
    }
    std::stable_sort(k.lines.begin(), k.lines.end(),
                     [](const LineTraffic& a, const LineTraffic& b) { return a.traffic.units > b.traffic.units; });
  }
  return kernels;
}

namespace {

// (snprintf, not fmt: the emulator links nothing a learner's program would not.)
std::string traffic_line(MemoryKind kind, const Traffic& t) {
  char text[200];
  if (is_shared(kind)) {
    std::snprintf(text, sizeof text, "%14s requests  %14s wavefronts  %5.2f per request  %12s bank conflicts",
                  thousands(t.requests).c_str(), thousands(t.units).c_str(), t.per_request(),
                  thousands(t.conflicts()).c_str());
  } else {
    std::snprintf(text, sizeof text, "%14s requests  %14s sectors     %5.2f per request  %5.1f %% of each sector used",
                  thousands(t.requests).c_str(), thousands(t.units).c_str(), t.per_request(), 100 * t.efficiency());
  }
  return text;
}

std::string padded(const std::string& text, std::size_t width) {
  return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

}  // namespace

std::string thousands(std::uint64_t count) {
  const std::string digits = std::to_string(count);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format_report(const std::vector<KernelTraffic>& kernels, int lines) {
  std::string out;
  for (const KernelTraffic& k : kernels) {
    out += "  " + k.kernel + " (" + std::to_string(k.launches) + (k.launches == 1 ? " launch" : " launches") + ", " +
           std::to_string(k.threads_per_block) + " threads a block, " + std::to_string(k.static_shared_bytes) +
           " bytes of static and " + std::to_string(k.dynamic_shared_bytes) + " of dynamic shared memory)\n";
    bool any = false;
    for (int i = 0; i < kMemoryKinds; ++i) {
      const auto kind = static_cast<MemoryKind>(i);
      if (k.of(kind).requests == 0) continue;
      any = true;
      out += "    " + padded(to_string(kind), 14) + traffic_line(kind, k.of(kind)) + "\n";
    }
    if (!any) out += "    no global or shared memory accesses\n";
    int shown = 0;
    for (const LineTraffic& l : k.lines) {
      if (shown++ == lines) break;
      if (shown == 1) out += "    costliest lines (as Nsight Compute's source view):\n";
      out += "      " + padded(l.place, 44) + padded(to_string(l.kind), 14) + traffic_line(l.kind, l.traffic) + "\n";
    }
  }
  return out;
}

void start_from_environment() {
  const char* env = std::getenv("GPULAB_MEMORY_REPORT");
  if (env == nullptr || std::string(env) == "0" || counting()) return;
  start();
  std::atexit([] {
    const std::vector<KernelTraffic> kernels = stop();
    std::fprintf(stderr,
                 "\n==== Memory report (emulated: every access counted; Nsight Compute's "
                 "l1tex__t_requests/t_sectors_pipe_lsu_mem_global_op_ld/st and "
                 "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/st)\n%s",
                 format_report(kernels).c_str());
  });
}

}  // namespace memory_counter

}  // namespace gpulab::emulated
