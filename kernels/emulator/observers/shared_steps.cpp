// The shared-memory step recorder (shared_steps.hpp). One block of a launch is recorded; only
// the worker running it writes to its trace, and stop() reads the traces after the launches.
#include "emulator/observers/shared_steps.hpp"

#include <atomic>
#include <cstring>
#include <mutex>

#include "emulator/execution/shared_memory.hpp"
#include "emulator/language/cuda_language.hpp"

namespace gpulab::emulated::shared_steps {

namespace {

struct State {
  std::atomic<bool> on{false};
  std::uint64_t block = 0;
  std::size_t launches_left = 0, max_accesses = 0;
  std::mutex mutex;  // guards traces' growth
  std::vector<Trace> traces;
  std::string kernel;  // the running launch's
  unsigned threads = 0;
};

State& state() {
  static State s;
  return s;
}

// The worker running the recorded block: its trace, and where each of its arrays begins.
thread_local Trace* here = nullptr;
thread_local std::vector<std::uintptr_t> begins;

bool recorded_block() {
  return here != nullptr && detail::current_block != nullptr && detail::current_block->linear == state().block;
}

std::uint32_t array_index(const shared::Window& w, const shared::Array& a) {
  for (std::size_t i = 0; i < begins.size(); ++i) {
    if (begins[i] == a.begin) return static_cast<std::uint32_t>(i);
  }
  ArrayInfo info;
  if (a.declaration != nullptr) {
    info.name = a.declaration->name, info.type = a.declaration->type;
    info.element_bytes = a.declaration->element_bytes;
  } else {
    info.name = w.dynamic_name != nullptr ? w.dynamic_name : "dynamic shared memory";
    info.type = w.dynamic_type != nullptr ? w.dynamic_type : "";
    info.element_bytes = w.dynamic_element_bytes;
  }
  info.elements = a.bytes / (info.element_bytes == 0 ? 1 : info.element_bytes);
  if (a.declaration != nullptr && a.declaration->rank > 1) {
    info.extents.assign(a.declaration->extents, a.declaration->extents + a.declaration->rank);
  } else {
    info.extents = {info.elements};
  }
  here->arrays.push_back(info);
  begins.push_back(a.begin);
  return static_cast<std::uint32_t>(begins.size() - 1);
}

// Every array's words as they are now: the end of a phase.
void snapshot() {
  std::vector<std::vector<std::uint32_t>> words(begins.size());
  for (std::size_t i = 0; i < begins.size(); ++i) {
    const std::size_t bytes = here->arrays[i].elements * here->arrays[i].element_bytes;
    words[i].resize(bytes / 4);
    std::memcpy(words[i].data(), reinterpret_cast<const void*>(begins[i]), words[i].size() * 4);
  }
  here->after.push_back(std::move(words));
}

}  // namespace

void start(std::uint64_t block, std::size_t launches, std::size_t max_accesses) {
  State& s = state();
  s.traces.clear();
  s.traces.reserve(launches);  // a worker keeps a pointer to its trace: no reallocation
  s.block = block, s.launches_left = launches, s.max_accesses = max_accesses;
  s.on = true;
}

std::vector<Trace> stop() {
  State& s = state();
  s.on = false;
  for (Trace& t : s.traces) {
    for (auto& phase : t.after) phase.resize(t.arrays.size());
    // A write's value: the element's when its phase ended (4-byte elements).
    for (Access& a : t.accesses) {
      if (!a.write || a.phase >= t.after.size()) continue;
      const std::vector<std::uint32_t>& words = t.after[a.phase][a.array];
      if (t.arrays[a.array].element_bytes == 4 && a.element < words.size()) a.bits = words[a.element];
    }
  }
  return std::move(s.traces);
}

bool recording() { return state().on.load(); }

namespace {

void begin_launch(const char* kernel, unsigned threads_per_block) {
  State& s = state();
  if (!s.on) return;
  s.kernel = kernel, s.threads = threads_per_block;
}

// Whether recording is on and the running block is the one recorded.
bool in_recorded_block() {
  const State& s = state();
  return s.on && detail::current_block != nullptr && detail::current_block->linear == s.block;
}

// The recorded block's trace, begun at its first shared access or warp operation in this launch;
// nullptr when no more launches are recorded.
Trace* trace_here() {
  State& s = state();
  if (here == nullptr) {
    std::lock_guard lock(s.mutex);
    if (s.launches_left == 0 || s.traces.size() == s.traces.capacity()) return nullptr;
    Trace& t = s.traces.emplace_back();
    t.kernel = s.kernel, t.block = s.block, t.threads = s.threads;
    here = &t;
    begins.clear();
  }
  return here;
}

void note(std::uintptr_t address, std::size_t size, bool write) {
  State& s = state();
  if (!in_recorded_block()) return;
  if (trace_here() == nullptr || here->accesses.size() >= s.max_accesses) return;
  const shared::Window& w = *shared::current_window;
  const shared::Array* array = shared::find(w, address, size);
  if (array == nullptr) return;
  const std::uint32_t index = array_index(w, *array);
  const std::size_t element_bytes = here->arrays[index].element_bytes == 0 ? 1 : here->arrays[index].element_bytes;
  const auto phase = static_cast<std::uint32_t>(detail::current_block->barrier_generation);
  // A 16-byte access to 4-byte elements is four of them.
  const std::size_t step = element_bytes == 4 ? 4 : size;
  for (std::size_t off = 0; off < size; off += step) {
    std::uint32_t bits = 0;
    if (!write && step == 4) std::memcpy(&bits, reinterpret_cast<const void*>(address + off), 4);
    here->accesses.push_back({detail::running_linear(), phase, index,
                              static_cast<std::uint32_t>((address + off - array->begin) / element_bytes), write, bits});
  }
}

void exchanged(unsigned warp, const std::uint64_t* slots, unsigned lanes) {
  State& s = state();
  if (!in_recorded_block()) return;
  if (trace_here() == nullptr || here->exchanges.size() >= s.max_accesses) return;
  WarpExchange& e = here->exchanges.emplace_back();
  e.warp = warp, e.lanes = lanes;
  e.phase = static_cast<std::uint32_t>(detail::current_block->barrier_generation);
  for (int l = 0; l < 32; ++l) e.bits[l] = static_cast<std::uint32_t>(slots[l]);
}

void barrier_fell(const char* file, int line) {
  if (!state().on || !recorded_block()) return;
  snapshot();
  here->barriers.push_back(file != nullptr ? std::string(file) + ":" + std::to_string(line)
                                           : std::string("a __syncthreads_count/and/or"));
}

void end_block() {
  if (!state().on || !recorded_block()) return;
  snapshot();
  here->barriers.push_back(kBlockEnd);
  std::lock_guard lock(state().mutex);
  --state().launches_left;
  here = nullptr;
}

class Recorder final : public observe::Observer {
 public:
  bool watches() const override { return recording(); }
  void begin_launch(const observe::LaunchShape& l) override {
    shared_steps::begin_launch(l.kernel, l.threads_per_block);
  }
  void access(const observe::MemoryAccess& a) override {
    if (a.shared) note(a.address, a.size, a.write);
  }
  void warp_exchange(unsigned warp, const std::uint64_t* slots, unsigned lanes) override {
    exchanged(warp, slots, lanes);
  }
  void barrier(const char* file, int line) override { barrier_fell(file, line); }
  void end_block() override { shared_steps::end_block(); }
};

}  // namespace

observe::Observer& observer() {
  static Recorder recorder;
  return recorder;
}

}  // namespace gpulab::emulated::shared_steps
