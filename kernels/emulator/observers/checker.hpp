#pragma once
// The emulator's checked mode: compute-sanitizer's four tools without a GPU.
//
// Kernel files built for the emulator are compiled with GCC's ThreadSanitizer instrumentation
// (-fsanitize=thread) but without its runtime: before each load and store, and in place of each
// atomic, the compiler calls a function that this file's checks stand behind (sanitizer_hooks.cpp).
// So every access a kernel makes is seen *before* it happens, with the instruction that makes it:
// - memcheck: an access outside every buffer (device memory is the arena of memory.hpp, shared
//   memory the worker's window of shared_memory.cpp, both with unmapped room around them) is
//   reported with the buffer it overran and stops the kernel before it touches anything;
// - racecheck: each 4-byte granule remembers its last writer and readers with their barrier
//   counts; two threads touching it with no __syncthreads() (or, in one warp, __syncwarp())
//   between, one of them writing, is a hazard — whatever order the emulator ran them in; a write
//   of the value already there is none (as under compute-sanitizer); between blocks, a read after
//   another block's write or a write after its read; between streams, see stream_order.hpp;
// - initcheck: a kernel's read of device memory nothing has written since cudaMalloc;
// - synccheck (scheduler.cpp): a barrier that not every thread reaches, or a warp operation whose
//   mask names lanes that do not take part.
// Reports are written to stderr at once, in compute-sanitizer's words. In GPU Lab's own runs (the
// lessons, the grader) the launch then fails with the first report as its error; a program built
// whole (gpulab_run) goes on, as under compute-sanitizer, and exits non-zero at its end. A wild
// access stops its thread and fails the launch in both.
// GPULAB_CHECK=memcheck keeps only the bounds checks (faster); the default is all four.
// GPULAB_CHECK=off, or a UseLevel scope, is the fast path: the instrumentation's calls return at
// once, so a launch runs at nearly the speed of the same code compiled without it — no reports, no
// memory counts, a wild write not stopped. GPU Lab's lessons time their emulated repetitions on it
// (after a checked first run); gpulab_run, the grader and the tests of the checks never use it.
#include <cstddef>
#include <cstdint>
#include <string>

namespace gpulab::emulated {
struct Allocation;  // memory.hpp
}
namespace gpulab::emulated::observe {
class Observer;  // observer.hpp
}

namespace gpulab::emulated::check {

enum class Level { off, memcheck, full };
// The level the calling thread's launches run at: its innermost UseLevel, else GPULAB_CHECK
// (off, memcheck or full), else full.
Level level();
// The process's level (GPULAB_CHECK, else full): buffers get racecheck's and initcheck's records
// when it is full, whatever level a launch later runs at.
Level default_level();
// Chooses the level of the calling thread's launches while it lives (they nest).
class UseLevel {
 public:
  explicit UseLevel(Level level);
  ~UseLevel();
  UseLevel(const UseLevel&) = delete;
  UseLevel& operator=(const UseLevel&) = delete;

 private:
  int previous_;
};

// The running launch's level (one launch runs at a time), and whether its accesses reach the
// checks at all: what the instrumentation's calls read first (sanitizer_hooks.cpp). Off outside
// launches, so host code in a kernel file pays only the call.
extern Level launch_level;
extern bool hooks_on;
inline bool tracking() { return launch_level == Level::full; }

// The writer recorded for bytes the host wrote (cudaMemcpy, cudaMemset): initialised, no thread's.
inline constexpr std::uint64_t kHostWriter = 0xF;

enum class Tool { memcheck, racecheck, initcheck, synccheck };

enum class Access { read, write, volatile_read, volatile_write, atomic };
// One access by the running kernel thread, before it happens (pc: the instruction after it).
// Atomics are checked for bounds and initialisation, and are never a race. `typed`: the compiler
// made it as an access of a type aligned to its size (a float4's 16 bytes, a double's 8), which
// must then start at a multiple of its size, as on a GPU; otherwise (a struct of floats copied in
// wider moves) a multiple of 4 bytes is enough.
void access(std::uintptr_t address, std::size_t size, Access kind, const void* pc, bool typed = false);

// An index out of an array's bounds (the compiler's -fsanitize=bounds check in a learner's code,
// before the access): a kernel's local array (or a row of one) is reported, and the thread stopped
// as for a wild access. `array_type` as the compiler names it ("'float [8]'"); file and line of the
// index where the debug lines do not say. An index into a static __shared__ array (its extents
// those of an array of the block's) is left to the shared-memory checks, which name the array.
void index_out_of_bounds(const char* array_type, long long index, bool negative, const void* pc, const char* file,
                         unsigned line);

// What a GlobalCell records of a block that reads it (its launch's tag and its number).
std::uint32_t reader_tag(std::uint32_t launch, std::uint64_t block);

// The checker as an observer of launches (observer.hpp), in front of the others. As a launch
// begins it picks the launch's level (at least memcheck when another observer watches: they see
// accesses through it); as a block ends, the reports of writes over other threads' writes that
// waited for the write to be done (only a changed value is a hazard) are settled and what the
// block touched is handed to stream_order; as the launch ends, its reports are gathered.
observe::Observer& observer();
// The running (or last) launch's number, and the reports the last launch to end made: its first
// report in full and what followed, or "".
std::uint32_t launch_number();
std::string launch_reports();

// A report of `tool`, written at once and counted; the running launch fails with the first.
// Repeats of one `key` are counted, not written again.
void report(Tool tool, const std::string& key, const std::string& text);
// A device buffer as every report names it: "'x' (1000 elements of 4 bytes)".
std::string describe_global(const Allocation& buffer);
// A report of work in two streams that nothing orders (stream_order.hpp), made after the
// operation, under the heading "racecheck between streams".
void report_between_streams(const std::string& key, const std::string& text);
// The block and thread in compute-sanitizer's words: "thread (3,0,0) in block (1,0,0)".
std::string running_thread();
// "file.cu:12 in kernel" for an instruction address (through the debug line tables).
std::string where(const void* pc);
// A wild access that faulted on an unmapped page (the SIGSEGV backstop, for code the
// instrumentation did not see).
std::string unmapped_access_report(std::uintptr_t address, const void* pc, const std::string& thread);
// Whether the running launch's kernel passes values through volatile memory (its race reports
// then say how to fix warp-synchronous code).
void note_volatile_kernel();

// The tool whose report a message carries ("racecheck", ...), or "" (the app shows it in a run's row).
std::string reported_tool(const std::string& message);

// A whole program (gpulab_run, gpulab_add_cuda_executable) exits non-zero when a check reported
// an error, after the summary; the rewrite adds the call to such programs.
// `launches_go_on`: past races, uninitialised reads and barrier errors, as under
// compute-sanitizer (a learner's program); else a launch fails at its first report (a program the
// grader builds, whose driver reads each launch's error).
int exit_nonzero_on_errors(bool launches_go_on);
bool launches_go_on();

// Whether each report is also written to stderr as it is made (the default). Python's gpulab sets
// it off: the launch's error (end_launch) then carries the launch's reports, raised as one exception.
void write_reports_to_stderr(bool yes);

}  // namespace gpulab::emulated::check
