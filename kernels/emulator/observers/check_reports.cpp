// What the checked mode says (checker.hpp): its reports in compute-sanitizer's words, with the
// buffer, the element and the source line, and the summary a program exits with. The checks on
// the access path (checker.cpp) call the reports here, out of their way.
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "emulator/execution/scheduler.hpp"
#include "emulator/observers/check_internal.hpp"
#include "emulator/observers/checker.hpp"

namespace gpulab::emulated::check {

namespace {
std::atomic<bool> whole_program{false};
std::atomic<bool> go_on{false};             // its launches go on past reports (launches_go_on)
std::atomic<bool> reports_to_stderr{true};  // write_reports_to_stderr
constexpr std::size_t kReportsKept = 4;     // reports of one launch kept beyond its first, where not written
}  // namespace

namespace internal {

thread_local constinit bool races_pending = false;

State& state() {
  static State* s = new State;  // never destroyed: exit-time reports still use it
  return *s;
}

const char* tool_name(Tool t) {
  static const char* const names[] = {"memcheck", "racecheck", "initcheck", "synccheck"};
  return names[static_cast<int>(t)];
}

std::string hex(std::uintptr_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%lx", static_cast<unsigned long>(v));
  return text;
}

std::string dims(const uint3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

// ---- what an address is

std::string element_words(std::size_t count, std::size_t element_bytes, const std::string& type) {
  if (!type.empty()) return std::to_string(count) + " × " + type;
  if (element_bytes <= 1) return std::to_string(count) + " bytes";
  return std::to_string(count) + (count == 1 ? " element of " : " elements of ") + std::to_string(element_bytes) +
         " bytes";
}

// "'tile' (32 × 32 × float)" for a static shared array.
std::string describe_shared(const shared::Window& w, const shared::Array& a) {
  if (a.declaration == nullptr) {
    const std::string name = w.dynamic_name != nullptr ? w.dynamic_name : "dynamic shared memory";
    const std::size_t e = w.dynamic_element_bytes;
    return "'" + name + "' (extern __shared__, " +
           element_words(a.bytes / e, e, w.dynamic_type != nullptr ? w.dynamic_type : "") + " at this launch)";
  }
  const detail::SharedDeclaration& d = *a.declaration;
  std::string shape;
  for (std::size_t i = 0; i < d.rank; ++i) shape += std::to_string(d.extents[i]) + " × ";
  if (d.rank == 0) return "'" + std::string(d.name) + "' (" + d.type + ")";
  return "'" + std::string(d.name) + "' (" + shape + d.type + ", declared at " + d.file + ":" + std::to_string(d.line) +
         ")";
}

std::size_t element_bytes_of(const shared::Window& w, const shared::Array& a) {
  return a.declaration != nullptr ? a.declaration->element_bytes : w.dynamic_element_bytes;
}

// Where `address` lies relative to a buffer [begin, begin + bytes) of elements of `element`
// bytes: "element 1030 of X, 6 elements past its end".
std::string relative(std::uintptr_t address, std::uintptr_t begin, std::size_t bytes, std::size_t element,
                     const std::string& what) {
  const std::string unit = element > 1 ? "element" : "byte";
  if (address < begin) {
    const std::size_t before = (begin - address + element - 1) / element;
    return std::to_string(before) + " " + unit + (before == 1 ? "" : "s") + " before the start of " + what;
  }
  const std::size_t index = (address - begin) / element;
  if (address < begin + bytes) return unit + " " + std::to_string(index) + " of " + what;
  const std::size_t past = index - bytes / element + 1;  // element n is 1 past the end of n elements
  return unit + " " + std::to_string(index) + " of " + what + ", " + std::to_string(past) + " " + unit +
         (past == 1 ? "" : "s") + " past its end";
}

std::string allocated_at(const Allocation& a) {
  return a.site.empty() ? "" : "=========     '" + a.name + "' was allocated at " + a.site + "\n";
}

std::string access_line(const char* space, bool write, std::size_t size, const void* pc) {
  return "========= Invalid " + std::string(space) + (write ? " write" : " read") + " of size " + std::to_string(size) +
         (size == 1 ? " byte" : " bytes") + "\n=========     at " + where(pc) + "\n=========     by " +
         running_thread() + "\n";
}

[[noreturn]] void fatal(cudaError_t code, const std::string& key, const std::string& text) {
  report(Tool::memcheck, key, text);
  stop_running_thread(std::make_exception_ptr(KernelFault(code, text)));
}

[[noreturn, gnu::noinline, gnu::cold]] void out_of_bounds(std::uintptr_t a, std::size_t size, Access kind,
                                                          const void* pc) {
  const bool write = writes(kind);
  std::string text = access_line("__global__", write, size, pc) + "=========     Address " + hex(a);
  const Nearest n = nearest_allocation(a);
  if (a < 65536) {
    text += " is a null pointer's: was the pointer passed to the kernel ever set (cudaMalloc)?\n";
  } else if (n.allocation == nullptr) {
    text += " is not device memory: no buffer is near it (a wild pointer, or a host pointer?)\n";
  } else if (n.copy.freed) {
    text += " is inside " + describe_global(n.copy) + ", which was freed (cudaFree) before this access\n" +
            allocated_at(n.copy);
  } else {
    text +=
        " is out of bounds: " + relative(a, n.copy.begin, n.copy.bytes, n.copy.element_bytes, describe_global(n.copy)) +
        "\n" + allocated_at(n.copy) +
        "=========     Is every index checked against the size (if (i < n)), and is the grid the size you meant?\n";
  }
  fatal(cudaErrorIllegalAddress, "global " + std::to_string(reinterpret_cast<std::uintptr_t>(pc)), text);
}

namespace {  // (this file's own: check_internal.hpp declares what checker.cpp calls)

// The bytes an access is about to write over another thread's write: compute-sanitizer calls
// a write-after-write a hazard only when it changes the value (two threads storing the same 0
// or the same flag is benign). The check runs before the write, so the report waits until the
// write is done — the worker's next access, or its block's end (settle_writes) — and is made only
// if the bytes then differ from those the earlier write left.
struct PendingRace {
  Granule granule;
  std::uint32_t before;  // the bytes the earlier write left
  std::string key, text;
};
// (On the heap: the emulator's thread-local storage stays small; see the CMake file.)
thread_local constinit std::vector<PendingRace>* pending_races = nullptr;

void racecheck_report(const Granule& g, const std::string& key, const std::string& text) {
  if (g.size == 0) return report(Tool::racecheck, key, text);
  if (pending_races == nullptr) pending_races = new std::vector<PendingRace>;
  PendingRace& p = pending_races->emplace_back(PendingRace{g, 0, key, text});
  std::memcpy(&p.before, reinterpret_cast<const void*>(g.address), g.size);
  races_pending = true;
}

// (several: the earlier access is one of several reads in the interval, some by other threads;
// warp_synchronous: the access now is through volatile memory.)
void race_report(const Granule& granule, const char* space, const char* kind, std::uint64_t before,
                 std::uint64_t before_where, std::uint64_t now, const void* pc, const std::string& what,
                 bool several = false, bool warp_synchronous = false) {
  const bool before_writes = kind[2] == 'W';  // WAW and RAW: the earlier access wrote
  const bool now_writes = kind[0] == 'W';
  const auto* before_pc = reinterpret_cast<const void*>(before_where);
  std::string text = "========= Error: Race reported between " + std::string(before_writes ? "Write" : "Read") +
                     " access at " + where(before_pc) +
                     (several ? " by several threads (the last: " + dims(thread_index(thread_of(before))) + ")"
                              : " by thread " + dims(thread_index(thread_of(before)))) +
                     "\n=========     and " + (now_writes ? "Write" : "Read") + " access at " + where(pc) +
                     " by thread " + dims(thread_index(thread_of(now))) + " in block " +
                     dims(detail::current_block->block_idx) + "\n=========     (" + kind + " hazard) on " + what +
                     " in " + space + " memory: no __syncthreads() between them (nor a __syncwarp(), in one warp)\n";
  if (warp_synchronous || state().volatile_kernel) {
    text +=
        "=========     This kernel passes values between a warp's lanes through volatile memory (warp-synchronous "
        "code from before Volta): lanes no longer run in lockstep. Put __syncwarp() between the steps, or use "
        "__shfl_down_sync().\n";
  }
  racecheck_report(granule,
                   std::string(kind) + " " + std::to_string(before_where) + " " +
                       std::to_string(reinterpret_cast<std::uintptr_t>(pc)),
                   text);
}

void race_report_blocks(const Granule& granule, const char* kind, std::uint64_t before, std::uint64_t before_where,
                        const void* pc, const std::string& what) {
  const auto* before_pc = reinterpret_cast<const void*>(before_where);
  const std::string text = "========= Error: Race reported between Write access at " + where(before_pc) + " by block " +
                           std::to_string(block_of(before)) + "\n=========     and " +
                           (kind[0] == 'W' ? "Write" : "Read") + " access at " + where(pc) + " by " + running_thread() +
                           "\n=========     (" + kind + " hazard between blocks) on " + what +
                           " in __global__ memory: blocks of one launch are not ordered\n";
  racecheck_report(granule,
                   std::string("blocks ") + kind + std::to_string(before_where) + " " +
                       std::to_string(reinterpret_cast<std::uintptr_t>(pc)),
                   text);
}

void war_report_blocks(const Granule& granule, std::uint32_t reader, const void* pc, const std::string& what) {
  const dim3 grid = detail::current_block->grid_dim;
  const bool many_blocks = std::uint64_t{grid.x} * grid.y * grid.z > 0x8000;
  const std::string text =
      "========= Error: Race reported between Read access by block " + std::to_string(reader & 0x7FFFu) +
      (many_blocks ? " (its number's remainder by 32768)" : "") + "\n=========     and Write access at " + where(pc) +
      " by " + running_thread() + "\n=========     (WAR hazard between blocks) on " + what +
      " in __global__ memory: blocks of one launch are not ordered, so the read may see the "
      "value before this write or after it (an in-place update that other blocks still read?)\n";
  racecheck_report(granule, "blocks WAR " + std::to_string(reinterpret_cast<std::uintptr_t>(pc)), text);
}

// The reports, out of the way of the checks' fast path.
[[gnu::noinline, gnu::cold]] std::string global_element(const Allocation& alloc, std::uintptr_t address) {
  return relative(address, alloc.begin, alloc.bytes, alloc.element_bytes, describe_global(alloc));
}

}  // namespace

[[gnu::noinline, gnu::cold]] void uninitialised_read(const Allocation& alloc, std::uintptr_t address, std::size_t size,
                                                     bool atomic, const void* pc) {
  report(Tool::initcheck, "init " + std::to_string(reinterpret_cast<std::uintptr_t>(pc)),
         "========= Uninitialized __global__ memory read of size " + std::to_string(size) + " bytes" +
             (atomic ? " (an atomic)" : "") + "\n=========     at " + where(pc) + "\n=========     by " +
             running_thread() + "\n=========     on " + global_element(alloc, address) +
             ": nothing wrote it since cudaMalloc (no cudaMemcpy, cudaMemset or kernel)\n" + allocated_at(alloc));
}

[[gnu::noinline, gnu::cold]] void global_race(const Allocation& alloc, std::uintptr_t address, unsigned size, Order o,
                                              bool write, bool warp_synchronous, std::uint64_t writer,
                                              std::uint64_t where, std::uint64_t now, const void* pc) {
  const Granule granule{address, write ? size : 0u};
  if (o == Order::racing) {
    race_report(granule, "__global__", write ? "WAW" : "RAW", writer, where, now, pc, global_element(alloc, address),
                false, warp_synchronous);
  } else if (write || !state().launch_used_atomics.load(std::memory_order_relaxed)) {
    race_report_blocks(granule, write ? "WAW" : "RAW", writer, where, pc, global_element(alloc, address));
  }
}

namespace {

[[gnu::noinline, gnu::cold]] std::string shared_element(const shared::Window& w, const shared::Array& array,
                                                        std::uintptr_t address) {
  return relative(address, array.begin, array.bytes, element_bytes_of(w, array), describe_shared(w, array));
}

}  // namespace

[[noreturn, gnu::noinline, gnu::cold]] void shared_out_of_bounds(const shared::Window& w, std::uintptr_t a,
                                                                 std::size_t size, Access kind, const void* pc) {
  std::string text = access_line("__shared__", writes(kind), size, pc) + "=========     Address " + hex(a);
  if (const shared::Array* near = shared::nearest(w, a)) {
    text += " is out of bounds: " + shared_element(w, *near, a) +
            "\n=========     On a GPU this reads or writes another variable's shared memory, or faults when it "
            "leaves the block's: is the block bigger than the array, or a tile's halo missing from its size?\n";
  } else {
    text += " is outside the block's shared memory (this kernel declares none)\n";
  }
  fatal(cudaErrorIllegalAddress, "shared " + std::to_string(reinterpret_cast<std::uintptr_t>(pc)), text);
}

[[noreturn, gnu::noinline, gnu::cold]] void misaligned(std::uintptr_t a, std::size_t size, Access kind, bool device,
                                                       const void* pc, std::size_t align) {
  fatal(cudaErrorMisalignedAddress, "misaligned " + std::to_string(reinterpret_cast<std::uintptr_t>(pc)),
        access_line(device ? "__global__" : "__shared__", writes(kind), size, pc) + "=========     Address " + hex(a) +
            " is misaligned: a " + std::to_string(size) + "-byte access must start at a multiple of " +
            std::to_string(align) + "\n");
}

void war_between_blocks(const Allocation& alloc, std::uintptr_t address, unsigned size, std::uint32_t reader,
                        const void* pc) {
  war_report_blocks({address, size}, reader, pc, global_element(alloc, address));
}

void shared_race(const shared::Window& w, const shared::Array& array, const Granule& granule, const char* kind,
                 std::uint64_t before, std::uint64_t before_where, std::uint64_t now, const void* pc, bool several,
                 bool warp_synchronous) {
  race_report(granule, "__shared__", kind, before, before_where, now, pc, shared_element(w, array, granule.address),
              several, warp_synchronous);
}

void settle_writes() {
  if (!races_pending) return;
  races_pending = false;
  for (const PendingRace& p : *pending_races) {
    std::uint32_t after = 0;
    std::memcpy(&after, reinterpret_cast<const void*>(p.granule.address), p.granule.size);
    if (after != p.before) report(Tool::racecheck, p.key, p.text);
  }
  pending_races->clear();
}

void at_exit() {
  if (whole_program) return;  // at_program_exit says it
  State& s = state();
  std::size_t total = 0;
  for (const std::size_t n : s.errors) total += n;
  if (total == 0) return;
  std::string counts;
  for (int t = 0; t < 4; ++t) {
    if (s.errors[t] == 0) continue;
    counts += (counts.empty() ? "" : ", ") + std::to_string(s.errors[t]) + " " + tool_name(static_cast<Tool>(t));
  }
  std::fprintf(stderr, "========= ERROR SUMMARY: %zu error%s (%s), found by GPU Lab's checked mode\n", total,
               total == 1 ? "" : "s", counts.c_str());
}

}  // namespace internal

using namespace internal;

namespace {

void at_program_exit() {
  const std::string leaks = describe_leaks();
  if (!leaks.empty()) std::fputs(leaks.c_str(), stderr);
  whole_program = false;
  at_exit();
  std::size_t total = 0;
  for (const std::size_t n : state().errors) total += n;
  if (total == 0) return;
  std::fflush(nullptr);
  _exit(1);
}

}  // namespace

std::string describe_global(const Allocation& a) {
  return "'" + a.name + "' (" + element_words(a.bytes / a.element_bytes, a.element_bytes, "") + ")";
}

std::string internal::gather_reports() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  std::string text = s.first_report;
  std::size_t repeats = 0;
  for (const auto& [key, count] : s.seen) repeats += count - 1;
  if (!reports_to_stderr) {  // every report is in the launch's error (the first few in full)
    text += s.later_reports;
    if (s.later_count > kReportsKept) {
      text += "(and " + std::to_string(s.later_count - kReportsKept) + " more report" +
              (s.later_count - kReportsKept == 1 ? "" : "s") + " of this launch)\n";
    }
  } else if (!text.empty() && s.seen.size() > 1) {
    text += "(and " + std::to_string(s.seen.size() - 1) + " more report" + (s.seen.size() == 2 ? "" : "s") +
            " of this launch on stderr)\n";
  }
  if (!text.empty() && repeats > 0) {
    text += "(the same error" + std::string(s.seen.size() == 1 ? " was" : "s were") + " seen " +
            std::to_string(repeats) + " more time" + (repeats == 1 ? "" : "s") + " in this launch)\n";
  }
  return text;
}

namespace {
void report_under(Tool tool, const std::string& key, const std::string& text, const std::string& heading) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  const std::string full_key = std::string(tool_name(tool)) + " " + key;
  if (s.seen[full_key]++ > 0) return;
  ++s.errors[static_cast<int>(tool)];
  const std::string with_kernel = "========= " + std::string(tool_name(tool)) +
                                  (heading.empty() ? " in kernel " + s.kernel : heading) + ":\n" + text;
  if (reports_to_stderr) {
    std::fputs(with_kernel.c_str(), stderr);
    std::fflush(stderr);
  }
  if (s.first_report.empty()) {
    s.first_report = with_kernel;
  } else if (!reports_to_stderr && s.later_count++ < kReportsKept) {
    s.later_reports += with_kernel;
  }
}
}  // namespace

void report(Tool tool, const std::string& key, const std::string& text) { report_under(tool, key, text, ""); }
void report_between_streams(const std::string& key, const std::string& text) {
  report_under(Tool::racecheck, key, text, " between streams");
}

std::string running_thread() {
  if (detail::current_block == nullptr) return "the host";
  return "thread " + dims(::threadIdx) + " in block " + dims(detail::current_block->block_idx);
}

std::string where(const void* pc) {
  State& s = state();
  std::lock_guard lock(s.places_mutex);
  if (const auto it = s.places.find(pc); it != s.places.end()) return it->second;
  std::string text = hex(reinterpret_cast<std::uintptr_t>(pc));
  Dl_info info{};
  if (pc != nullptr && dladdr(pc, &info) != 0 && info.dli_fname != nullptr) {
    const std::uintptr_t offset =
        reinterpret_cast<std::uintptr_t>(pc) - 1 - reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    std::string file = info.dli_fname;
    if (file.empty() || file.find('/') == std::string::npos) file = "/proc/self/exe";
    const std::string command = "addr2line -f -i -e '" + file + "' " + hex(offset) + " 2>/dev/null";
    if (FILE* pipe = popen(command.c_str(), "r")) {
      char line[4096];
      // Pairs of lines, function then file:line, from the innermost inlined call outwards: the
      // first place in the program's own code (not the emulator's or the library's headers).
      bool odd = true;
      std::string found;
      while (std::fgets(line, sizeof line, pipe) != nullptr) {
        std::string l(line);
        while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
        if (!odd && found.empty() && l.rfind("??", 0) != 0 && l.find("/emulator/") == std::string::npos &&
            l.find("/include/c++/") == std::string::npos) {
          if (const std::size_t paren = l.find(" (discriminator"); paren != std::string::npos) l.erase(paren);
          found = l;
        }
        odd = !odd;
      }
      pclose(pipe);
      // Relative to the working folder, as the program's own messages name its files.
      char cwd[4096];
      if (getcwd(cwd, sizeof cwd) != nullptr && found.rfind(std::string(cwd) + "/", 0) == 0) {
        found.erase(0, std::strlen(cwd) + 1);
      }
      if (!found.empty()) text = found;
    }
  }
  s.places[pc] = text;
  return text;
}

std::string unmapped_access_report(std::uintptr_t address, const void* pc, const std::string& thread) {
  std::string text = "========= Invalid memory access (an unmapped address)\n=========     at " + where(pc) +
                     "\n=========     by " + thread + "\n=========     Address " + hex(address);
  const Nearest n = nearest_allocation(address);
  if (n.allocation != nullptr && !n.copy.freed) {
    text += ": " + relative(address, n.copy.begin, n.copy.bytes, n.copy.element_bytes, describe_global(n.copy));
  } else if (n.allocation != nullptr) {
    text += " is inside " + describe_global(n.copy) + ", which was freed";
  } else {
    text += " is not device memory: no buffer is near it (a wild pointer, or a host pointer?)";
  }
  text += "\n";
  report(Tool::memcheck, "unmapped " + std::to_string(reinterpret_cast<std::uintptr_t>(pc)), text);
  return text;
}

void note_volatile_kernel() {
  std::lock_guard lock(state().mutex);
  state().volatile_kernel = true;
}

std::string reported_tool(const std::string& message) {
  for (int t = 0; t < 4; ++t) {
    const std::string name = tool_name(static_cast<Tool>(t));
    if (message.find("========= " + name + " in kernel") != std::string::npos) return name;
  }
  return "";
}

bool launches_go_on() { return go_on; }

void write_reports_to_stderr(bool yes) { reports_to_stderr = yes; }

int exit_nonzero_on_errors(bool launches_go_on) {
  go_on = launches_go_on;
  if (!whole_program.exchange(true)) std::atexit(at_program_exit);
  return 0;
}

}  // namespace gpulab::emulated::check
