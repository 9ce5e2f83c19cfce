// Stream work that nothing orders (see stream_order.hpp).
#include "emulator/observers/stream_order.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "emulator/observers/checker.hpp"
#include "emulator/runtime/memory.hpp"

namespace gpulab::emulated::stream_order {

bool collecting = false;

namespace {

// A vector clock: for stream i, how many of its operations this one comes after.
using Clock = std::vector<std::uint64_t>;
void join(Clock& into, const Clock& other) {
  if (into.size() < other.size()) into.resize(other.size(), 0);
  for (std::size_t i = 0; i < other.size(); ++i) into[i] = std::max(into[i], other[i]);
}
std::uint64_t at(const Clock& c, std::size_t i) { return i < c.size() ? c[i] : 0; }

// One access of a buffer by one operation: the span of bytes it read or wrote.
struct Access {
  std::size_t stream;
  std::uint64_t tick;  // the operation's number in its stream
  std::uintptr_t lo, hi;
  bool write;
  std::string what;
};
constexpr std::size_t kKept = 64;  // accesses kept per buffer: the recent ones, which can still race

struct Stream {
  Clock clock;
  bool non_blocking = false;
  bool live = true;
};

struct State {
  std::mutex mutex;
  bool active = false;                         // a stream was created: there is an order to keep
  std::map<const void*, std::size_t> numbers;  // a live stream's number (0: the legacy default stream)
  std::vector<Stream> streams{Stream{}};
  std::map<const void*, Clock> events;                // each event's clock when it was last recorded
  Clock host;                                         // what the host has waited for
  std::map<std::uintptr_t, std::deque<Access>> kept;  // by buffer start
};

// An operation under way: its stream, its clock, and each buffer's span of bytes it read and wrote.
using Spans = std::map<std::uintptr_t, std::pair<std::uintptr_t, std::uintptr_t>>;  // by buffer: [lo, hi)
struct Op {
  std::size_t stream = 0;
  Clock clock;
  std::string what;
  Spans reads, writes;
};
// The calling host thread's copy or fill (host threads may queue work at once: lesson 10's, one
// per GPU), and the running launch's (one at a time), whose spans the workers hand over.
thread_local constinit Op* host_op = nullptr;
Op* kernel_op = nullptr;

State& state() {
  static State* s = new State;  // never destroyed: programs may queue work from their exit handlers
  return *s;
}

std::size_t number_of(State& s, cudaStream_t stream) {
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) return 0;
  const auto found = s.numbers.find(stream);
  if (found != s.numbers.end()) return found->second;
  // A stream the emulator did not create (a library's handle): its own, blocking.
  s.streams.push_back(Stream{});
  return s.numbers[stream] = s.streams.size() - 1;
}

std::string stream_name(std::size_t n) { return n == 0 ? "the default stream" : "stream " + std::to_string(n); }

void add_span(std::map<std::uintptr_t, std::pair<std::uintptr_t, std::uintptr_t>>& spans, std::uintptr_t buffer,
              std::uintptr_t lo, std::uintptr_t hi) {
  const auto [it, fresh] = spans.try_emplace(buffer, lo, hi);
  if (!fresh) it->second = {std::min(it->second.first, lo), std::max(it->second.second, hi)};
}

void check_and_keep(State& s, const Op& op, const Allocation& buffer, std::uintptr_t lo, std::uintptr_t hi,
                    bool write) {
  std::deque<Access>& kept = s.kept[buffer.begin];
  // What the host waited for comes before everything queued since: no longer needed.
  std::erase_if(kept, [&](const Access& a) { return a.tick <= at(s.host, a.stream); });
  for (const Access& a : kept) {
    if (a.stream == op.stream || (!a.write && !write) || a.hi <= lo || hi <= a.lo) continue;
    if (a.tick <= at(op.clock, a.stream)) continue;  // ordered: this operation waited for it
    const std::uintptr_t from = std::max(lo, a.lo), to = std::min(hi, a.hi);
    const auto byte = [&](std::uintptr_t p) { return std::to_string(p - buffer.begin); };
    check::report_between_streams(
        "streams " + std::to_string(buffer.begin) + " " + a.what + " " + op.what,
        "========= Error: Race reported between " + std::string(a.write ? "Write" : "Read") + " access by " + a.what +
            " in " + stream_name(a.stream) + "\n=========     and " + (write ? "Write" : "Read") + " access by " +
            op.what + " in " + stream_name(op.stream) + "\n=========     (" + (write ? "W" : "R") + "A" +
            (a.write ? "W" : "R") + " hazard between streams) on bytes " + byte(from) + " to " + byte(to - 1) + " of " +
            check::describe_global(buffer) +
            " in __global__ memory: nothing orders the two streams' work, so on a GPU they may run at "
            "once. Record an event after the first (cudaEventRecord) and make the second stream wait for it "
            "(cudaStreamWaitEvent), or synchronise between them.\n");
    break;  // one report per operation and buffer
  }
  kept.push_back(Access{op.stream, at(op.clock, op.stream), lo, hi, write, op.what});
  if (kept.size() > kKept) kept.pop_front();
}

}  // namespace

void created(cudaStream_t stream, bool non_blocking) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.active = true;
  s.streams.push_back(Stream{{}, non_blocking, true});
  s.numbers[stream] = s.streams.size() - 1;
}

void destroyed(cudaStream_t stream) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  const auto found = s.numbers.find(stream);
  if (found == s.numbers.end()) return;
  s.streams[found->second].live = false;
  s.numbers.erase(found);  // (a new stream at the same address is another stream)
}

void begin(cudaStream_t stream, const char* what, bool kernel) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (!s.active || (kernel ? kernel_op != nullptr : host_op != nullptr)) return;  // (a copy inside a copy: one)
  const std::size_t n = number_of(s, stream);
  Stream& mine = s.streams[n];
  join(mine.clock, s.host);
  if (n == 0) {  // the legacy default stream waits for every blocking stream's earlier work
    for (const Stream& other : s.streams) {
      if (!other.non_blocking) join(mine.clock, other.clock);
    }
  } else if (!mine.non_blocking) {  // and a blocking stream's work waits for it
    join(mine.clock, s.streams[0].clock);
  }
  if (mine.clock.size() <= n) mine.clock.resize(n + 1, 0);
  ++mine.clock[n];
  Op* op = new Op{n, mine.clock, what, {}, {}};
  if (kernel) {
    kernel_op = op;
    collecting = true;
  } else {
    host_op = op;
  }
}

void touched(std::uintptr_t begin, std::size_t bytes, bool write) {
  if (bytes == 0) return;
  State& s = state();
  std::lock_guard lock(s.mutex);
  Op* op = host_op != nullptr ? host_op : kernel_op;  // (a worker has no host_op)
  if (op == nullptr) return;
  const Allocation* buffer = find_allocation(begin);
  if (buffer == nullptr) return;
  add_span(write ? op->writes : op->reads, buffer->begin, begin, begin + bytes);
}

void end(bool kernel) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  Op* op = kernel ? std::exchange(kernel_op, nullptr) : std::exchange(host_op, nullptr);
  if (kernel) collecting = false;
  if (op == nullptr) return;
  for (const Spans* spans : {&op->writes, &op->reads}) {
    for (const auto& [start, span] : *spans) {
      if (const Allocation* buffer = find_allocation(start)) {
        check_and_keep(s, *op, *buffer, span.first, span.second, spans == &op->writes);
      }
    }
  }
  delete op;
}

void event_recorded(cudaEvent_t event, cudaStream_t stream) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (!s.active) return;
  s.events[event] = s.streams[number_of(s, stream)].clock;
}

void stream_waits(cudaStream_t stream, cudaEvent_t event) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (!s.active) return;
  const auto found = s.events.find(event);
  if (found != s.events.end()) join(s.streams[number_of(s, stream)].clock, found->second);
}

void event_destroyed(cudaEvent_t event) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.events.erase(event);
}

void host_waited(cudaStream_t stream) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (!s.active) return;
  const std::size_t n = number_of(s, stream);
  join(s.host, s.streams[n].clock);
  if (n == 0) {  // (taken as waiting for the blocking streams too: no report where CUDA's rule is unclear)
    for (const Stream& other : s.streams) {
      if (!other.non_blocking) join(s.host, other.clock);
    }
  }
}

void host_waited_event(cudaEvent_t event) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  const auto found = s.events.find(event);
  if (found != s.events.end()) join(s.host, found->second);
}

void host_waited_all() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (!s.active) return;
  for (const Stream& stream : s.streams) join(s.host, stream.clock);
  s.kept.clear();  // everything queued so far is done before anything queued next
}

}  // namespace gpulab::emulated::stream_order
