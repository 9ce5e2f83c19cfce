// The emulator's memory counts (emulator/observers/memory_counter.hpp) on kernels whose requests, sectors
// and bank conflicts are known by heart; tools/compare-memory.py checks the lessons' kernels
// against Nsight Compute on a GPU.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "common/targets.hpp"
#include "emulator/observers/memory_counter.hpp"
#include "kernels/memory_patterns.hpp"

using namespace gpulab;
namespace mp = gpulab::memory_patterns;
using emulated::MemoryKind;

namespace {

const UseDevice kOnEmulator(Backend::emulated);
template <typename T>
using Buffer = DeviceBuffer<T>;

// The counts of the one kernel `launch` runs.
emulated::KernelTraffic counted(const std::function<void()>& launch) {
  emulated::memory_counter::start(true);
  launch();
  std::vector<emulated::KernelTraffic> kernels = emulated::memory_counter::stop();
  REQUIRE(kernels.size() == 1);
  return kernels.front();
}

Buffer<float> filled(std::size_t n) {
  Buffer<float> b(n, "in");
  b.copy_from(std::vector<float>(n, 1.0f));
  return b;
}

}  // namespace

TEST_CASE("a warp's 32 consecutive floats are 4 sectors; a row apart, 32", "[memory]") {
  const std::size_t n = 4096;  // 128 warps
  Buffer<float> in = filled(n * 32), out(n, "out");
  for (const int stride : {1, 2, 8, 32}) {
    const emulated::KernelTraffic k = counted([&] { mp::gather_strided(in.span(), out.span(), stride); });
    INFO("stride " << stride);
    const emulated::Traffic& ld = k.of(MemoryKind::global_load);
    CHECK(ld.requests == 128);
    CHECK(ld.units == 128u * static_cast<unsigned>(std::min(32, 4 * stride)));
    CHECK(ld.ideal == 128 * 4);  // 128 bytes a request: 4 sectors at best
    CHECK(k.of(MemoryKind::global_store).units == 128 * 4);
    REQUIRE_FALSE(k.lines.empty());
    CHECK(k.lines.front().place.find("memory_patterns.cu") != std::string::npos);
  }
}

TEST_CASE("a broadcast is one sector; half a warp's lanes, half the sectors", "[memory]") {
  const std::size_t n = 1024;
  Buffer<float> in = filled(n), out(n, "out");
  const emulated::KernelTraffic b = counted([&] { mp::broadcast(in.span(), out.span()); });
  CHECK(b.of(MemoryKind::global_load).requests == 32);
  CHECK(b.of(MemoryKind::global_load).units == 32);
  const emulated::KernelTraffic e = counted([&] { mp::even_lanes(in.span(), out.span()); });
  CHECK(e.of(MemoryKind::global_load).requests == 32);
  CHECK(e.of(MemoryKind::global_load).units == 32 * 4);  // the even lanes still span 4 sectors
  CHECK(e.of(MemoryKind::global_load).ideal == 32 * 2);  // 64 bytes asked
  const auto load = std::find_if(e.lines.begin(), e.lines.end(),
                                 [](const emulated::LineTraffic& l) { return l.kind == MemoryKind::global_load; });
  REQUIRE(load != e.lines.end());
  CHECK(std::count_if(load->worst.offset.begin(), load->worst.offset.end(), [](std::int64_t o) { return o >= 0; }) ==
        16);
}

TEST_CASE("a float4 load is one 16-byte request a warp: 16 sectors, none wasted", "[memory]") {
  const std::size_t n = 4096;
  Buffer<float> in = filled(n), out(n, "out");
  const emulated::KernelTraffic k = counted([&] { mp::copy_float4(in.span(), out.span()); });
  const emulated::Traffic& ld = k.of(MemoryKind::global_load);
  CHECK(ld.requests == n / 4 / 32);
  CHECK(ld.units == n / 4 / 32 * 16);
  CHECK(ld.efficiency() == Approx(1.0));
}

TEST_CASE("cp.async's 16-byte copies count by pairs of lanes, as Nsight Compute counts them", "[memory]") {
  // An H200 counted 4, 4, 4, 4, 5, 4, 4, 5 sectors for the 8 blocks (issue 42's probe): lanes 0-1
  // and 16-17 copy 32 contiguous bytes each, one unit wherever they sit against the sectors, two
  // where they cross a 128-byte line (blocks 4 and 7); lanes 2 and 18 one each. Sectors of the
  // same 96 bytes read by ordinary loads: 3 or 4.
  Buffer<float> in = filled(64), out(32 * 4 * 8, "out");
  const emulated::KernelTraffic k = counted([&] { mp::async_pieces(in.span(), out.span()); });
  const emulated::Traffic& ld = k.of(MemoryKind::global_load);
  CHECK(ld.requests == 8);
  CHECK(ld.units == 4 * 6 + 5 * 2);
}

TEST_CASE("shared memory: lanes a stride of 2 words apart conflict 2-way; 33 apart, not at all", "[memory]") {
  Buffer<float> out(256, "out");
  for (const auto& [stride, wavefronts] :
       std::vector<std::pair<int, unsigned>>{{1, 1}, {2, 2}, {4, 4}, {32, 32}, {33, 1}}) {
    const emulated::KernelTraffic k = counted([&] { mp::shared_strided(out.span(), stride); });
    INFO("stride " << stride);
    const emulated::Traffic& st = k.of(MemoryKind::shared_store);
    const emulated::Traffic& ld = k.of(MemoryKind::shared_load);
    CHECK(st.requests == 8);
    CHECK(st.units == 8 * wavefronts);
    CHECK(ld.conflicts() == 8 * (wavefronts - 1));
  }
}

TEST_CASE("each warp's requests and sectors are kept for the thread map", "[memory]") {
  const std::size_t n = 1024;
  Buffer<float> in = filled(n * 32), out(n, "out");
  const emulated::KernelTraffic k = counted([&] { mp::gather_strided(in.span(), out.span(), 32); });
  REQUIRE(k.warps.size() == 32);
  for (const emulated::WarpTraffic& w : k.warps) {
    CHECK(w.requests == 2);      // a load and a store
    CHECK(w.sectors == 32 + 4);  // the strided load and the coalesced store
  }
}

TEST_CASE("nothing is counted unless asked", "[memory]") {
  Buffer<float> in = filled(1024), out(1024, "out");
  mp::broadcast(in.span(), out.span());
  CHECK_FALSE(emulated::memory_counter::counting());
  CHECK(emulated::memory_counter::stop().empty());
}
