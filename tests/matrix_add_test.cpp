// Lesson 03's kernels on rectangular matrices, emulated (every variant at the lesson's square
// awkward sizes, on every backend: variants_test).
#include <catch2/catch.hpp>

#include "common/backend.hpp"
#include "common/random.hpp"
#include "common/verify.hpp"
#include "emulator/runtime/memory.hpp"
#include "matrix_add/matrix_add.hpp"

using namespace gpulab;

TEST_CASE("both thread mappings add rectangular matrices, wide and tall", "[matrix_add][emu]") {
  using Shape = std::pair<std::size_t, std::size_t>;
  // Widths of every remainder mod 4 (1, 2, 3 columns: rows shorter than a float4), so the float4
  // kernel's rows start at every offset from 16-byte alignment.
  const auto [rows, cols] = GENERATE(Shape{1, 1000}, Shape{1000, 1}, Shape{17, 333}, Shape{333, 17}, Shape{64, 65},
                                     Shape{3, 7}, Shape{5, 8}, Shape{9, 2}, Shape{11, 3}, Shape{6, 5}, Shape{5, 1026});
  const int mapping = GENERATE(0, 1, 2);  // coalesced, coalesced_float4, transposed
  const int threads = GENERATE(32, 256, 1000);
  CAPTURE(rows, cols, mapping, threads);
  std::vector<float> a(rows * cols), b(rows * cols), c(rows * cols);
  fill_uniform(a, 5, 0, -1, 1);
  fill_uniform(b, 5, 1, -1, 1);
  std::vector<double> expected(rows * cols);
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = double(a[i]) + double(b[i]);
  emulated::DeviceBuffer<float> da(a.size(), "A"), db(b.size(), "B"), dc(c.size(), "C");
  da.copy_from(a);
  db.copy_from(b);
  dc.fill_bytes(kPoisonByte);
  UseDevice on_emulator(Backend::emulated);
  const auto launch = mapping == 0   ? matrix_add::coalesced
                      : mapping == 1 ? matrix_add::coalesced_float4
                                     : matrix_add::transposed;
  launch(da.span(), db.span(), dc.span(), rows, cols, threads);
  dc.copy_to(c);
  const CheckResult r = compare(c, expected, {1.2e-7, 0}, "matrix_add");
  INFO(r.message);
  CHECK(r.passed);
}

TEST_CASE("the CPU loop orders agree on a rectangular matrix", "[matrix_add][cpu]") {
  const std::size_t rows = 37, cols = 53;
  std::vector<float> a(rows * cols), b(rows * cols), c1(rows * cols), c2(rows * cols), c3(rows * cols);
  fill_uniform(a, 9, 0, -1, 1);
  fill_uniform(b, 9, 1, -1, 1);
  matrix_add::cpu_row_order(a, b, c1, rows, cols);
  matrix_add::cpu_column_order(a, b, c2, rows, cols);
  matrix_add::cpu_threads(a, b, c3, rows, cols);
  CHECK(c1 == c2);
  CHECK(c1 == c3);
  CHECK(c1[cols + 2] == a[cols + 2] + b[cols + 2]);
}
