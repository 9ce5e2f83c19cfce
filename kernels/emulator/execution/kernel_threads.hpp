#pragma once
// What a kernel's code calls into the emulator's execution (scheduler.cpp): the running block and
// thread, barriers and warp exchanges, a block's static and dynamic shared memory, the thread
// loops a launch runs and the launch itself. Part of the device language's header
// (language/cuda_language.hpp includes it after its macros; not to be included alone).
#include "emulator/execution/phases.hpp"

namespace gpulab::emulated {

namespace detail {

struct BlockContext {
  uint3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;
  std::uint64_t linear = 0;      // the block's number in the grid
  std::uint32_t launch = 0;      // the launch's number (checked mode)
  std::uint32_t reader_tag = 0;  // racecheck's record of this block as a reader (checker.cpp)
  // For racecheck (kept by the scheduler): barriers opened so far, and each warp's __syncwarp()s.
  std::uint64_t barrier_generation = 0;
  const std::uint64_t* warp_syncs = nullptr;
};

// The running block (one per worker thread) and the running thread (the current fiber).
// (constinit: no dynamic initialisation, so reading them costs no TLS wrapper call in a kernel.)
extern thread_local constinit BlockContext* current_block;

void syncthreads(const char* file, int line);
void syncwarp(unsigned mask, const char* file, int line);
// __syncthreads_count/and/or: a barrier that also combines every thread's predicate.
enum class BlockVote { count, all, any };
int syncthreads_vote(int predicate, BlockVote vote);
// The lanes named in `mask` deposit their value; once every live lane of the mask has arrived,
// each gets all 32 slots and the lanes that took part (lanes outside the mask are left alone,
// as on the GPU; lanes that exited before take no part).
struct Exchange {
  const std::uint64_t* slots;
  unsigned lanes;
};
Exchange warp_exchange(unsigned mask, std::uint64_t value);
// The same across a tile of `count` threads (a multiple of 32 that divides the block: the
// caller's tile starts at its linear index rounded down to a multiple of `count`): the tile's
// slots, by thread rank, once every live thread of the tile has deposited its value, and which
// ranks took part (an exited thread does not).
struct TileExchange {
  const std::uint64_t* slots;
  const std::uint8_t* took_part;
};
TileExchange tile_exchange(unsigned count, std::uint64_t value);
unsigned int lane_id();
unsigned int live_lanes();  // lanes of this warp that exist and have not exited, as a mask
[[noreturn]] void not_emulated(const char* what);

template <typename T>
std::uint64_t to_bits(T v) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>, "warp exchanges move up to 8 bytes");
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  return bits;
}
template <typename T>
T from_bits(std::uint64_t bits) {
  T v;
  std::memcpy(&v, &bits, sizeof(T));
  return v;
}

// A shuffle: lane `src` of the caller's segment of `width` lanes, or the caller's own value
// when `src` falls outside the segment or the warp (CUDA's rule for up and down shuffles).
// A type wider than 8 bytes (a uint4, a struct) moves 8 bytes at a time, one exchange each, as
// the GPU's shuffle of such a type moves it 4 bytes at a time.
template <typename T>
T shuffle(unsigned mask, T var, long src, int width) {
  const long lane = lane_id();
  const long segment = lane / width * width;
  const bool own = src < segment || src >= segment + width || src >= 32;
  if constexpr (sizeof(T) <= 8) {
    const std::uint64_t* slots = warp_exchange(mask, to_bits(var)).slots;
    return own ? var : from_bits<T>(slots[src]);
  } else {
    static_assert(std::is_trivially_copyable_v<T>, "a shuffled type must be trivially copyable");
    constexpr std::size_t words = (sizeof(T) + 7) / 8;
    std::uint64_t in[words] = {}, out[words] = {};
    std::memcpy(in, &var, sizeof(T));
    for (std::size_t w = 0; w < words; ++w) out[w] = warp_exchange(mask, in[w]).slots[own ? lane : src];
    T result;
    std::memcpy(&result, out, sizeof(T));
    return own ? var : result;
  }
}

}  // namespace detail

namespace detail {
// One `__shared__` declaration of a kernel (one per instantiation): what a report says of it.
struct SharedDeclaration {
  const char* name;
  const char* type;  // the element type as written
  std::size_t bytes, element_bytes;
  const std::size_t* extents;  // the array's dimensions, `rank` of them
  std::size_t rank;
  const char* file;
  int line;
};
template <typename T, std::size_t... I>
constexpr auto extents_of(std::index_sequence<I...>) {
  return std::array<std::size_t, sizeof...(I) + 1>{std::extent_v<T, I>..., 0};
}
// The block's copy of a static __shared__ variable, placed on its first use in the block.
void* static_shared(const SharedDeclaration& declaration);
void* dynamic_shared_memory(const char* name, const char* type, std::size_t element_bytes);
}  // namespace detail

// What `__shared__ T name DIMS;` becomes: `auto& name = static_shared<T DIMS>([] {}, ...);` (the
// lambda's type makes each declaration, in each instantiation of its kernel, one variable).
template <typename T, typename Site>
T& static_shared(Site, const char* name, const char* type, const char* file, int line) {
  static constexpr auto extents = detail::extents_of<T>(std::make_index_sequence<std::rank_v<T>>());
  static const detail::SharedDeclaration declaration{
      name, type, sizeof(T), sizeof(std::remove_all_extents_t<T>), extents.data(), std::rank_v<T>, file, line};
  return *static_cast<T*>(detail::static_shared(declaration));
}

// What `extern __shared__ T name[];` refers to: the launch's dynamic shared memory as T[].
template <typename T>
[[gnu::always_inline]] inline T (&dynamic_shared(const char* name = "dynamic shared memory", const char* type = ""))[] {
  return *static_cast<T(*)[]>(detail::dynamic_shared_memory(name, type, sizeof(T)));
}

// Where a kernel touches memory through `volatile` (the rewrite puts a call after it): says once,
// on stderr, that such warp-synchronous code is right only if a warp's lanes run in lockstep.
void note_volatile(const char* file, int line);

namespace detail {

// The running CUDA thread: its record, which a thread gets only when it first waits
// (scheduler.cpp), and its number in the block, x fastest, from its index (which the worker
// sets before it resumes a thread): nothing a thread loop must store for every thread.
struct Thread;
extern thread_local constinit Thread* running_thread;
inline unsigned running_linear() {
  return ::threadIdx.x + ::blockDim.x * (::threadIdx.y + ::blockDim.y * ::threadIdx.z);
}

// The running thread's synchronisation so far, for racecheck: its block's barrier count (high
// half) and its warp's __syncwarp count (low half).
inline std::uint64_t sync_stamp() {
  const BlockContext& b = *current_block;
  return b.barrier_generation << 32 | (b.warp_syncs[running_linear() / 32] & 0xFFFFFFFFu);
}

// Where a runner starts threads one after another, and how far it may go (scheduler.cpp).
struct Starts {
  unsigned next;
  uint3 idx;
  dim3 dim;
  unsigned count;
  const bool* counting;  // the block counts exits (a thread has synchronised): every end goes to thread_ended
};
// A kernel thread threw: records it for the launch (rethrows what must unwind a fiber).
void thread_threw();
// After a thread's body, where the block counts exits or the thread waited on the way: counts
// it out; true when it had waited (so its runner stops: another took over).
bool thread_ended(unsigned linear);

// Runs threads from `from` until one waits or all have run; returns the number of the next
// thread it did not start. A template, so that the kernel's call is inlined into the loop.
// A row of threads (threadIdx.x counting up) is the inner loop, and it stores nothing but
// threadIdx.x for each thread: a thread that meets no barrier, exchange or check calls nothing,
// so for a kernel like a vector add the compiler keeps everything else in registers and the
// loop is the kernel's own arithmetic plus a compare. What can change under it — a thread
// waited (running_thread), the block began counting exits (a barrier, __activemask) — changes
// only in a call, and the compiler reloads it after one.
template <typename Body, bool checked>
[[gnu::always_inline]] inline unsigned thread_loop_of(const Body& kernel, const Starts& from) {
  // (The index in three scalars, each stored on its own: a uint3 copied whole is reloaded wider
  // than it was stored, which stalls the loop on every thread.)
  unsigned t = from.next, x = from.idx.x, y = from.idx.y, z = from.idx.z;
  const unsigned count = from.count, dim_x = from.dim.x, dim_y = from.dim.y;
  const bool* counting = from.counting;
  running_thread = nullptr;  // a thread that waits gets a record, and its runner returns below
  while (t < count) {
    ::threadIdx.y = y, ::threadIdx.z = z;
    const unsigned row_end = dim_x - x < count - t ? dim_x : x + (count - t);  // (std::min is instrumented)
    while (x < row_end) {
      // The row's threads up to the first whose end the block must hear of. (No call in this
      // loop but the kernel's own: one would make the compiler reload everything after it.)
      for (; x < row_end; ++x, ++t) {
        ::threadIdx.x = x;
        // The checks find the running thread from threadIdx, but GCC takes its instrumentation's
        // calls to read no memory and would store the index once, after the row: not past here.
        if constexpr (checked) asm volatile("" ::: "memory");
        try {
          kernel();
        } catch (...) {
          thread_threw();
        }
        if (running_thread != nullptr || *counting) break;
      }
      if (x == row_end) break;
      const bool waited = thread_ended(t);
      ++x, ++t;
      if (waited) return t;
    }
    x = 0;  // the next row (a division-free step to the next thread's index)
    if (++y == dim_y) y = 0, ++z;
  }
  return t;
}
// The checked loop runs the kernel on a copy of the launch's arguments in its own frame: the
// instrumentation leaves alone what no other code can see, so reading an argument calls no check
// (it is no device memory, and the check would only have filtered it out: 4 calls of 13 a thread
// in a vector add), though the loop reads the arguments again for every thread (its barrier to
// the compiler, above). Only where the copy copies bytes and nothing else.
template <typename Body, bool checked>
[[gnu::always_inline]] inline unsigned thread_loop(const void* body, const Starts& from) {
  if constexpr (checked && std::is_trivially_copyable_v<Body>) {
    const Body own = *static_cast<const Body*>(body);
    return thread_loop_of<Body, checked>(own, from);
  } else {
    return thread_loop_of<Body, checked>(*static_cast<const Body*>(body), from);
  }
}
// The loop twice: checked, where the kernel's accesses call the checks (the kernel file is built
// with the instrumentation), and fast, where the same kernel, inlined into a function the
// instrumentation leaves alone, runs as plain compiled code. The fast loop runs a kernel the
// rewrite split at its barriers in phases (phases.hpp): each thread's call only starts it, to its
// first barrier; the phases after run once all have started.
template <typename Body>
unsigned run_threads(const void* body, const Starts& from) {
  phases_on = false;
  return thread_loop<Body, true>(body, from);
}
template <typename Body>
[[gnu::no_sanitize_thread]] unsigned run_threads_fast(const void* body, const Starts& from) {
  phases_on = phases_allowed;
  const unsigned next = thread_loop<Body, false>(body, from);
  if (phases_waiting()) run_phases();
  return next;
}
using ThreadLoop = unsigned (*)(const void* body, const Starts& from);
struct ThreadLoops {
  ThreadLoop checked, fast;
};

void launch_threads(const char* kernel, const char* file, int line, ThreadLoops loops, const void* body, dim3 grid,
                    dim3 block, std::size_t shared_bytes, cudaStream_t stream);

}  // namespace detail

// Runs `body` once per thread of every block, after checking the configuration against the
// device's limits. What `kernel<<<grid, block, shared_bytes, stream>>>(args)` becomes in the
// emulated build. Like a GPU launch it throws nothing: a refused configuration or a fault in the
// kernel is what the next cudaGetLastError() returns.
// A launch's arguments, evaluated once where the launch is, as a GPU launch copies them into the
// kernel's parameters: what each thread's call of the kernel receives (see rewrite.hpp).
// (Inlined, as the rewrite's call of the kernel and the kernel are, into both thread loops.)
// (`File`: the launch's file, as a number, which makes the body's type that file's own.)
template <unsigned long long File, typename Call, typename... Args>
auto arguments_once(const Call& call, Args&&... args) {
  return [ call, ... arguments = std::decay_t<Args>(std::forward<Args>(args)) ]() __attribute__((always_inline)) {
    call(arguments...);
  };
}

namespace detail {
// A learner's .cu is compiled twice (lessons/run/two_halves.hpp): once instrumented, for its
// kernels (GPULAB_INSTRUMENTED_HALF), and once as plain optimised C++, for its host code
// (GPULAB_PLAIN_HOST). A launch in the plain half runs the thread loops of the instrumented half,
// found by the type of the launch's body: each launch of the instrumented half leaves its loops in
// a section of the program, gpulab_thread_loops — constant data, there whether the code that
// launches ever runs or not. (By an assembler directive: GCC drops a section attribute from a
// template's instantiations.)
struct LoopsEntry {
  const std::type_info* body;
  ThreadLoops loops;
};
// The instrumented loops of the launch whose body is `body`, from the section.
ThreadLoops instrumented_loops(const std::type_info& body, const char* kernel);
}  // namespace detail

template <typename Body>
void launch_kernel(const char* kernel, const char* file, int line, const Body& body, dim3 grid, dim3 block,
                   std::size_t shared_bytes = 0, cudaStream_t stream = nullptr) {
#ifdef GPULAB_PLAIN_HOST
  static const detail::ThreadLoops loops = detail::instrumented_loops(typeid(Body), kernel);
#else
  constexpr detail::ThreadLoops loops{&detail::run_threads<Body>, &detail::run_threads_fast<Body>};
#ifdef GPULAB_INSTRUMENTED_HALF
  asm volatile(".pushsection gpulab_thread_loops,\"aw\"\n\t.quad %c0, %c1, %c2\n\t.popsection" ::"i"(&typeid(Body)),
               "i"(&detail::run_threads<Body>), "i"(&detail::run_threads_fast<Body>));
#endif
#endif
  detail::launch_threads(kernel, file, line, loops, &body, grid, block, shared_bytes, stream);
}

}  // namespace gpulab::emulated
