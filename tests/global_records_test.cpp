// The checked mode's packed records of device memory (emulator/observers/global_records.hpp): what a granule's
// record reads back as after the writes and reads of a launch, and what the records cost.
#include <catch2/catch.hpp>

#include <cstdint>

#include "emulator/observers/global_records.hpp"

using namespace gpulab::emulated;

namespace {

constexpr std::uint64_t kHostWriter = 0xF;  // checker.hpp's: written before the launch

// A GlobalCell writer word as checker.cpp makes it: instruction, launch tag, block, thread, bytes.
std::uint64_t writer(std::uint32_t tag, std::uint64_t block, unsigned thread, std::uint16_t instruction = 7) {
  return std::uint64_t{instruction} << 48 | std::uint64_t{tag} << 38 | (block & 0xFFFFFF) << 14 |
         std::uint64_t{thread} << 4 | 0xF;
}
std::uint32_t reader(std::uint32_t tag, std::uint32_t block) { return tag << 22 | block; }

struct Records {
  explicit Records(std::size_t bytes) : r(records::make(bytes)) {}
  ~Records() { records::drop(r); }
  Records(const Records&) = delete;
  Records& operator=(const Records&) = delete;
  GlobalRecords* r;
};

// A launch of `blocks` blocks of `threads` threads, thread t of block b writing float i = b·threads + t.
void write_floats(GlobalRecords& r, std::uint32_t tag, unsigned blocks, unsigned threads, std::uint32_t sync = 0) {
  for (unsigned b = 0; b < blocks; ++b) {
    for (unsigned t = 0; t < threads; ++t) {
      const std::size_t i = std::size_t{b} * threads + t;
      records::store_write(r, i, writer(tag, b, t), sync, i * 4, 4);
    }
  }
}

}  // namespace

TEST_CASE("a launch's writes read back as the thread, block and instruction that made them", "[records]") {
  Records buffer(4096 * 4);
  records::begin_launch(1);
  write_floats(*buffer.r, 2, 16, 256, 5);
  for (const std::size_t g : {0u, 1u, 31u, 32u, 255u, 256u, 4095u}) {
    const GlobalCell cell = records::load(*buffer.r, g, 2);
    CHECK(cell.writer == writer(2, g / 256, static_cast<unsigned>(g % 256)));
    CHECK(cell.sync == 5);
    CHECK(cell.reader == 0);
  }
  // A float4 a thread, and a thread overwriting its own float with another instruction.
  Records wide(1024 * 16);
  for (unsigned t = 0; t < 1024; ++t) {
    for (unsigned piece = 0; piece < 4; ++piece) {
      records::store_write(*wide.r, t * 4 + piece, writer(2, 0, t), 0, t * 16, 16);
    }
  }
  records::store_write(*wide.r, 40, writer(2, 0, 10, 9), 0, 160, 4);
  CHECK(records::load(*wide.r, 41, 2).writer == writer(2, 0, 10));
  CHECK(records::load(*wide.r, 40, 2).writer == writer(2, 0, 10, 9));
  CHECK(records::load(*wide.r, 1023 * 4 + 3, 2).writer == writer(2, 0, 1023));
  records::end_launch();

  // The next launch sees all of it as written before, by no thread of its own.
  records::begin_launch(2);
  CHECK(records::load(*buffer.r, 77, 3).writer == kHostWriter);
  CHECK(records::load(*wide.r, 40, 3).writer == kHostWriter);
  records::end_launch();
}

TEST_CASE("reads keep their block per granule once a second block reads a line", "[records]") {
  Records buffer(1024 * 4);
  records::host_wrote(*buffer.r, 0, 1023);
  records::begin_launch(3);
  CHECK(records::read(*buffer.r, 0, reader(4, 1)).reader == 0);
  CHECK(records::read(*buffer.r, 0, reader(4, 1)).reader == reader(4, 1));
  CHECK(records::read(*buffer.r, 1, reader(4, 1)).reader == 0);
  CHECK(records::read(*buffer.r, 1, reader(4, 2)).reader == reader(4, 1));  // the second block
  CHECK(records::load(*buffer.r, 0, 4).reader == reader(4, 1));
  CHECK(records::load(*buffer.r, 1, 4).reader == reader(4, 2));
  CHECK(records::load(*buffer.r, 2, 4).reader == 0);
  CHECK(records::read(*buffer.r, 2, reader(4, 3)).writer == kHostWriter);
  CHECK(records::load(*buffer.r, 2, 4).reader == reader(4, 3));
  records::end_launch();
  records::begin_launch(4);
  CHECK(records::load(*buffer.r, 1, 5).reader == 0);  // readers are of one launch
  records::end_launch();
}

TEST_CASE("a line whose writes follow no pattern is kept in full, and given back at the launch's end", "[records]") {
  Records buffer(64 * 4);
  records::begin_launch(5);
  records::store_write(*buffer.r, 3, writer(6, 0, 3), 0, 12, 4);
  CHECK(records::read(*buffer.r, 5, reader(6, 0)).writer == 0);   // nothing wrote it
  records::store_write(*buffer.r, 4, writer(6, 0, 0), 0, 16, 4);  // thread 0 where the pattern says 4
  CHECK(records::load(*buffer.r, 3, 6).writer == writer(6, 0, 3));
  CHECK(records::load(*buffer.r, 4, 6).writer == writer(6, 0, 0));
  CHECK(records::load(*buffer.r, 5, 6).reader == reader(6, 0));
  records::store_write(*buffer.r, 6, writer(6, 0, 1), 0, 25, 2);  // two bytes: no pattern
  CHECK(records::load(*buffer.r, 6, 6).writer == writer(6, 0, 1));
  CHECK(records::resident_bytes(*buffer.r) > 0);
  records::end_launch();
  records::begin_launch(6);
  CHECK(records::load(*buffer.r, 3, 7).writer == kHostWriter);
  CHECK(records::load(*buffer.r, 6, 7).writer == kHostWriter);
  CHECK(records::load(*buffer.r, 5, 7).writer == 0);
  records::end_launch();
}

TEST_CASE("two blocks 16 floats wide write a line's halves without keeping it in full", "[records]") {
  // C of a 16 x 16-tiled multiply, n = 64: block (bx, by) thread (tx, ty) writes C[(16by + ty)·64 + 16bx + tx].
  const std::size_t n = 64;
  Records c(n * n * 4);
  records::begin_launch(9);
  for (unsigned by = 0; by < 4; ++by) {
    for (unsigned bx = 0; bx < 4; ++bx) {
      for (unsigned t = 0; t < 256; ++t) {
        const std::size_t i = (16 * by + t / 16) * n + 16 * bx + t % 16;
        records::store_write(*c.r, i, writer(10, by * 4 + bx, t), 0, i * 4, 4);
      }
    }
  }
  CHECK(records::resident_bytes(*c.r) <= 4096);  // the lines alone: no page of full records
  for (const std::size_t i : {0u, 15u, 16u, 31u, 63u, 64u, 4095u}) {
    const unsigned by = static_cast<unsigned>(i / n / 16), bx = static_cast<unsigned>(i % n / 16);
    CHECK(records::load(*c.r, i, 10).writer ==
          writer(10, by * 4 + bx, static_cast<unsigned>(i / n % 16 * 16 + i % 16)));
  }
  // A third block over granule 5: a line of three writers is kept in full, each writer exact.
  records::store_write(*c.r, 5, writer(10, 99, 0), 0, 20, 4);
  CHECK(records::load(*c.r, 5, 10).writer == writer(10, 99, 0));
  CHECK(records::load(*c.r, 20, 10).writer == writer(10, 1, 4));
  // The second pattern over a granule of the first: which came last, only a full record says.
  records::store_write(*c.r, 64 + 16, writer(10, 0, 16 + 16), 0, (64 + 16) * 4, 4);
  CHECK(records::load(*c.r, 64 + 16, 10).writer == writer(10, 0, 32));
  records::end_launch();
}

TEST_CASE("the records of a buffer written and read whole cost under a third of its size", "[records]") {
  const std::size_t floats = std::size_t{1} << 22;  // 16 MiB
  Records buffer(floats * 4);
  records::begin_launch(7);
  write_floats(*buffer.r, 8, static_cast<unsigned>(floats / 256), 256);
  for (std::size_t g = 0; g < floats; ++g) records::read(*buffer.r, g, reader(8, static_cast<std::uint32_t>(g / 256)));
  CHECK(records::resident_bytes(*buffer.r) <= floats * 4 / 3);
  CHECK(records::load(*buffer.r, floats - 1, 8).writer == writer(8, floats / 256 - 1, 255));
  records::end_launch();
  // A host copy over it marks it written, without a record per granule.
  records::host_wrote(*buffer.r, 0, floats - 1);
  CHECK(records::resident_bytes(*buffer.r) <= floats * 4 / 3);
}
