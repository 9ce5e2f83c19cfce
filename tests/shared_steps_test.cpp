// The shared-memory step recorder (emulator/observers/shared_steps.hpp, common/shared_steps.hpp): what it
// records of a reduction tree, a double-buffered scan and a histogram's atomics is what those
// kernels do, phase by phase; attention's online softmax read from the warps' exchanges.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "common/online_softmax_steps.hpp"
#include "common/shared_steps.hpp"
#include "registry.hpp"

using namespace gpulab;
namespace steps = gpulab::emulated::shared_steps;

namespace {

StepRecording recorded(const std::string& lesson, const std::string& variant, const std::string& problem) {
  const Lesson* l = find_lesson(lesson);
  REQUIRE(l != nullptr);
  return record_shared_steps(*l, variant, steps_problem_of(*l, problem), 7);
}

float as_float(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace

TEST_CASE("a reduction tree recorded step by step: level k has 256 >> k adders, each adding t + stride into t",
          "[steps]") {
  const StepRecording r = recorded("13", "sequential_addressing", "256");
  REQUIRE(r.traces.size() == 1);
  const steps::Trace& t = r.traces.front();
  CHECK(t.kernel == "sum_sequential_addressing");
  CHECK(t.threads == 256);
  const std::uint32_t partial = main_array(t);
  CHECK(t.arrays[partial].name == "partial");
  CHECK(t.arrays[partial].type == "float");
  // The load, 8 levels, and the block's end (thread 0 reads the total): 10 phases.
  REQUIRE(t.after.size() == 10);
  CHECK(t.barriers.back() == steps::kBlockEnd);
  CHECK(t.barriers[1].find("reduction.cu:") != std::string::npos);
  for (std::uint32_t level = 1; level <= 8; ++level) {
    INFO("level " << level);
    const std::uint32_t stride = 256u >> level;
    const std::vector<StepOperation> ops = operations_in(t, level, partial);
    REQUIRE(ops.size() == stride);
    for (const StepOperation& op : ops) {
      REQUIRE(op.writes.size() == 1);
      REQUIRE(op.reads.size() == 2);
      CHECK(op.writes[0].first == op.thread);
      CHECK(op.reads[0].first == op.thread);
      CHECK(op.reads[1].first == op.thread + stride);
      // The value written is the sum of the two read, in float, as the kernel adds them.
      CHECK(as_float(op.writes[0].second) == as_float(op.reads[0].second) + as_float(op.reads[1].second));
    }
  }
  // After the last level, partial[0] holds the block's sum (of all 256 inputs, about 128).
  CHECK(as_float(t.after[8][partial][0]) > 64.0f);
}

TEST_CASE("Hillis–Steele's double buffer: each step reads one half and writes the other, t from t and t − 2^k",
          "[steps]") {
  const StepRecording r = recorded("15", "hillis_steele", "256");
  REQUIRE_FALSE(r.traces.empty());
  const steps::Trace& t = r.traces.front();
  CHECK(t.kernel == "scan_hillis_steele");
  const std::uint32_t buffer = main_array(t);
  REQUIRE(t.arrays[buffer].extents == std::vector<std::size_t>{2, 256});
  for (std::uint32_t step = 1; step <= 8; ++step) {
    INFO("step " << step);
    const std::uint32_t offset = 1u << (step - 1);
    const std::uint32_t from = (step - 1) % 2, to = 1 - from;  // the halves
    const std::vector<StepOperation> ops = operations_in(t, step, buffer);
    REQUIRE(ops.size() == 256);  // every thread, every step: n·log n work
    for (const StepOperation& op : ops) {
      REQUIRE(op.writes.size() == 1);
      CHECK(op.writes[0].first == to * 256 + op.thread);
      std::uint32_t sum = 0;
      for (const auto& [element, bits] : op.reads) {
        CHECK(element / 256 == from);
        sum += bits;
      }
      CHECK(op.reads.size() == (op.thread >= offset ? 2u : 1u));
      CHECK(op.writes[0].second == sum);
    }
  }
}

TEST_CASE("a histogram's shared atomics are several writes to one element in one phase: contention", "[steps]") {
  // Every byte one value: every add of block 0 goes to that value's bin.
  const StepRecording r = recorded("14", "shared_privatized", "4096:100");
  REQUIRE_FALSE(r.traces.empty());
  const steps::Trace& t = r.traces.front();
  const std::uint32_t bins = main_array(t);
  std::size_t hottest = 0, touched = 0;
  std::vector<std::size_t> writes(t.arrays[bins].elements, 0);
  for (const steps::Access& a : t.accesses) {
    if (a.array == bins && a.phase == 1 && a.write) ++writes[a.element];
  }
  for (const std::size_t w : writes) hottest = std::max(hottest, w), touched += w > 0 ? 1 : 0;
  CHECK(touched == 1);
  CHECK(hottest > 1);
  // The bin's count when the phase ended is the number of adds it took.
  for (std::size_t e = 0; e < writes.size(); ++e) {
    if (writes[e] > 0) CHECK(t.after[1][bins][e] == writes[e]);
  }
}

TEST_CASE("step recordings refuse what they cannot show", "[steps]") {
  const Lesson* l = find_lesson("13");
  REQUIRE(l != nullptr);
  CHECK_THROWS_WITH(steps_problem_of(*l, "100000"), Catch::Contains("n up to 4096"));
  CHECK_THROWS_WITH(steps_problem_of(*l, "ten"), Catch::Contains("not a size"));
  CHECK_THROWS_WITH(record_shared_steps(*l, "cub", l->problem(256), 1), Catch::Contains("needs CUB"));
  CHECK_THROWS_WITH(record_shared_steps(*l, "nope", l->problem(256), 1), Catch::Contains("no variant nope"));
}

TEST_CASE(
    "attention's online softmax read from the fused kernel's recording: m only grows, the first tile's "
    "factor is 0, and the last tile reaches the softmax of every score at once",
    "[steps]") {
  const StepRecording r = recorded("19", "fused", "1x1x100x64");
  const OnlineSoftmaxSteps s = online_softmax_steps(r);
  CHECK(s.head_dim == 64);
  REQUIRE(s.queries.size() == 8);  // a warp a query
  for (const OnlineSoftmaxQuery& q : s.queries) {
    REQUIRE(q.tiles.size() == 4);  // 100 keys: 32, 32, 32 and 4
    CHECK(q.tiles.back().last_key == 99);
    CHECK(q.keys_seen == 100);
    CHECK(q.tiles.front().correction == 0.0f);
    CHECK(q.weights_agree < 1e-6);
    for (std::size_t t = 1; t < q.tiles.size(); ++t) {
      CHECK(q.tiles[t].running_max >= q.tiles[t - 1].running_max);
      CHECK(q.tiles[t].correction <= 1.0f);
    }
    CHECK(q.tiles.back().distance < 1e-6);
    CHECK(q.tiles.front().distance > 1e-3);  // a quarter of the keys is not the answer
  }
  // With the causal mask query i sees keys 0 to i: the first block's all in one tile.
  const OnlineSoftmaxSteps causal = online_softmax_steps(recorded("19", "fused", "1x1x100x64:causal"));
  for (const OnlineSoftmaxQuery& q : causal.queries) {
    CHECK(q.tiles.size() == 1);
    CHECK(q.keys_seen == q.query + 1);
  }
  // Another kernel's recording is not read as one.
  CHECK_THROWS_WITH(online_softmax_steps(recorded("13", "warp_shuffle", "256")), Catch::Contains("no shared array"));
}
