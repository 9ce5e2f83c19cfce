// A block of a phased kernel (phases.hpp), run barrier by barrier on its worker.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "emulator/execution/block_state.hpp"
#include "emulator/execution/scheduler.hpp"
#include "emulator/language/cuda_language.hpp"
#include "emulator/observers/observer.hpp"

namespace gpulab::emulated::detail {

thread_local constinit bool phases_on = false, in_phased_thread = false;
bool phases_allowed = [] {
  const char* no = std::getenv("GPULAB_NO_PHASES");
  return no == nullptr || *no == '\0' || *no == '0';
}();

namespace {

using Handle = std::coroutine_handle<PhasedThread::promise_type>;

struct Waiting {
  Handle thread;
  uint3 idx;
};

// A worker's: the block's coroutines in pieces of 1 MiB, used from the start again for each block
// (a block of 1024 threads needs a few hundred KiB), and the threads waiting at the barrier.
struct Phases {
  std::vector<std::unique_ptr<std::byte[]>> pieces;
  std::size_t piece = 0;  // the one in use (phase_next, phase_end)
  std::vector<Waiting> waiting;
};
constexpr std::size_t kPiece = std::size_t{1} << 20;

thread_local Phases* phases = nullptr;

Phases& worker_phases() {
  if (phases == nullptr) phases = new Phases;  // one per worker, for the process's life
  return *phases;
}

}  // namespace

thread_local constinit const char* phase_barrier_file = nullptr;
thread_local constinit int phase_barrier_line = 0;

thread_local constinit std::byte *phase_next = nullptr, *phase_end = nullptr;

void* phase_storage_from_new_piece(std::size_t bytes) {
  Phases& p = worker_phases();
  if (bytes > kPiece) throw std::bad_alloc();
  if (phase_next != nullptr) ++p.piece;  // the current piece is full
  if (p.piece == p.pieces.size()) p.pieces.push_back(std::make_unique<std::byte[]>(kPiece));
  phase_next = p.pieces[p.piece].get() + bytes;
  phase_end = p.pieces[p.piece].get() + kPiece;
  return p.pieces[p.piece].get();
}

void keep_phased(Handle thread) {
  if (thread.done()) {
    thread.destroy();
    return;
  }
  worker_phases().waiting.push_back({thread, ::threadIdx});
}

bool phases_waiting() { return phases != nullptr && !phases->waiting.empty(); }

void begin_phases() {
  if (phases == nullptr) return;
  // What the last block left (one that failed or was stopped mid-phase) is dropped unrun.
  phases->piece = 0;
  phase_next = phases->pieces.empty() ? nullptr : phases->pieces[0].get();
  phase_end = phases->pieces.empty() ? nullptr : phases->pieces[0].get() + kPiece;
  in_phased_thread = false;
  phases->waiting.clear();
}

namespace {
std::atomic<std::uint64_t> phased_blocks{0};
}  // namespace

void run_phases() {
  phased_blocks.fetch_add(1, std::memory_order_relaxed);
  Phases& p = worker_phases();
  std::vector<Waiting>& waiting = p.waiting;
  Block& block = *running_block;
  while (!waiting.empty() && !block.error) {
    // Every live thread has reached a barrier: it opens (as arrive_at_barrier opens it).
    observe::barrier(phase_barrier_file, phase_barrier_line);
    current_block->barrier_generation = ++block.barrier_generation;
    std::size_t kept = 0;
    for (const Waiting& w : waiting) {
      ::threadIdx = w.idx;
      in_phased_thread = true;
      w.thread.resume();
      in_phased_thread = false;
      if (w.thread.done()) {
        w.thread.destroy();
      } else {
        waiting[kept++] = w;
      }
    }
    waiting.resize(kept);
  }
  for (const Waiting& w : waiting) w.thread.destroy();  // the block failed: the rest never run on
  waiting.clear();
}

}  // namespace gpulab::emulated::detail

namespace gpulab::emulated {
std::uint64_t blocks_run_in_phases() { return detail::phased_blocks.load(std::memory_order_relaxed); }
}  // namespace gpulab::emulated
