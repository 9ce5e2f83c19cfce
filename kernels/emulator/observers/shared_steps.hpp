#pragma once
// A block's shared memory, step by step: while recording, the emulator writes down every access
// one block makes to its shared memory (which thread, which element, read or written, the value)
// and the whole of its shared arrays each time a __syncthreads() falls. So a learner can watch a
// reduction tree or a scan's sweeps as they really ran: who added what, between which barriers.
// The checked mode sees each access before it happens (checker.hpp): a read's value is the one
// it read; a write's is the element's value when the next barrier fell. The values a warp's lanes
// hand each other (shuffles, votes) are written down too: registers seen where they meet.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "emulator/observers/observer.hpp"

namespace gpulab::emulated::shared_steps {

struct ArrayInfo {
  std::string name;  // as declared ("tree"), or the extern __shared__ array's
  std::string type;  // "float", "unsigned int"
  std::size_t elements = 0, element_bytes = 0;
  std::vector<std::size_t> extents;  // as declared: {2, 256} for [2][256]; {elements} otherwise
};

struct Access {
  std::uint32_t thread;   // threadIdx, linear
  std::uint32_t phase;    // barriers fallen before it
  std::uint32_t array;    // index into Trace::arrays
  std::uint32_t element;  // index into the array (flattened)
  bool write;
  std::uint32_t bits;  // the 4-byte value read or written (elements of 4 bytes; 0 otherwise)
};

// One warp operation of the recorded block (a shuffle, a vote): the value each lane offered.
struct WarpExchange {
  std::uint32_t warp;      // in the block
  std::uint32_t phase;     // barriers fallen before it
  std::uint32_t lanes;     // the lanes that took part (bit l: lane l)
  std::uint32_t bits[32];  // lane l's value (its low 4 bytes: a float, an int)
};

// One launch's recorded block.
struct Trace {
  std::string kernel;
  std::uint64_t block = 0;  // its linear number in the grid
  unsigned threads = 0;
  std::vector<ArrayInfo> arrays;
  std::vector<Access> accesses;         // in the order the emulator ran them
  std::vector<WarpExchange> exchanges;  // in the order each completed
  // after[p][a]: array a's 4-byte words when phase p ended (at barrier p, or the block's end).
  std::vector<std::vector<std::vector<std::uint32_t>>> after;
  std::vector<std::string> barriers;  // where barrier p is ("scan.cu:57"); the last phase's is kBlockEnd
};

// What Trace::barriers holds for the phase the block's end closes.
inline constexpr const char* kBlockEnd = "the block's end";

// Records block `block` of each launch from now on (at most `launches` of them that use shared
// memory, with at most `max_accesses` accesses each); stop() gives their traces.
void start(std::uint64_t block = 0, std::size_t launches = 8, std::size_t max_accesses = 1 << 20);
std::vector<Trace> stop();

bool recording();  // between start() and the end of its recording

// The recorder as an observer of launches (observer.hpp): it watches while recording, and writes
// down the recorded block's shared accesses, its warps' exchanges and its arrays as each barrier
// falls and as the block ends.
observe::Observer& observer();

}  // namespace gpulab::emulated::shared_steps
