// Lesson 12, transpose: the workload, its variants, what it counts and how it is checked.
#include "common/lesson.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "common/array_runs.hpp"
#include "common/peaks.hpp"
#include "common/results.hpp"
#include "common/rows_by_cols.hpp"
#include "problems/transpose/transpose_reference.hpp"
#include "transpose/transpose.hpp"

namespace gpulab {

namespace {

namespace tr = transpose;

// No arithmetic: every element must arrive exactly.
constexpr Tolerance kExact{0, 0};

using Span = std::span<const float>;
using CpuFunction = void (*)(Span, std::span<float>, std::size_t rows, std::size_t cols);
using TileLauncher = void (*)(Span, std::span<float>, std::size_t rows, std::size_t cols);

RunFactory cpu(const char* name, CpuFunction fn) {
  return cpu_array_run(name, kExact, [fn](const Inputs& in, std::span<float> out, const Launch& launch) {
    fn(in[0], out, launch.shape[0], launch.shape[1]);
  });
}

ArrayFunction tiles(TileLauncher f) {
  return [f](const Inputs& in, std::span<float> out, const Launch& launch) {
    f(in[0], out, launch.shape[0], launch.shape[1]);
  };
}

// Square matrices by --n; any rows x cols by --shape.
Problem problem_of(std::int64_t n) { return {n, {{"rows", n}, {"cols", n}}}; }

// The first four rungs' grids are 2-D, and CUDA allows at most 65,535 blocks down one: rows_a_block
// rows of a each (naive's 256 threads: 8).
SkipRule grid_fits(std::int64_t rows_a_block) {
  return unless_applies([rows_a_block](const Problem& p) -> std::optional<std::string> {
    const std::int64_t rows = p.dim("rows", p.n);
    if (rows <= 65535 * rows_a_block) return std::nullopt;
    return "its 2-D grid would need more than 65,535 blocks down (" + std::to_string(rows) +
           " rows); whole_sectors' 1-D grid takes any shape";
  });
}

Problem rectangle(std::int64_t rows, std::int64_t cols) {
  return {std::max<std::int64_t>(rows, cols), {{"rows", rows}, {"cols", cols}}};
}

// "ROWSxCOLS", e.g. 4096x1000 or 1x67108864 (a row: the transpose is a copy).
Problem parse_shape(const std::string& text) {
  const auto shape = parse_rows_by_cols(text, 1, std::int64_t{1} << 32);
  if (!shape || shape->first * shape->second > (std::int64_t{1} << 32)) {
    throw std::invalid_argument("expected ROWSxCOLS, each at least 1, at most 2^32 elements");
  }
  return rectangle(shape->first, shape->second);
}

std::size_t rows_of(const Problem& p) { return static_cast<std::size_t>(p.dim("rows", p.n)); }
std::size_t cols_of(const Problem& p) { return static_cast<std::size_t>(p.dim("cols", p.n)); }

// Every element read once and written once: 8 bytes an element, no FLOPs.
Counts counts_of(const Problem& p) {
  const double elements = static_cast<double>(rows_of(p)) * static_cast<double>(cols_of(p));
  return {0, 8 * elements, 4 * elements, 4 * elements};
}

Footprint footprint_of(const Problem& p) {
  const double elements = static_cast<double>(rows_of(p)) * static_cast<double>(cols_of(p));
  return {24 * elements, 8 * elements};  // a, b, their pinned copies, the float64 reference
}

// After a GPU run, the ceiling at each shape: a copy of the same bytes, timed as the kernels are —
// a matrix of 100 MB is copied at less than the 1.07 GB copy's rate the "% copy" column divides by.
std::vector<std::string> copy_at_each_shape(const std::vector<Result>& results) {
  std::vector<std::string> notes;
  std::vector<const Result*> fastest;  // the fastest passing GPU row of each shape, in the table's order
  for (const Result& r : results) {
    if (r.backend != Backend::gpu || r.status != Status::passed || !r.kernel) continue;
    auto same = std::find_if(fastest.begin(), fastest.end(),
                             [&](const Result* f) { return dims_text(f->problem) == dims_text(r.problem); });
    if (same == fastest.end()) {
      fastest.push_back(&r);
    } else if (r.kernel->median < (*same)->kernel->median) {
      *same = &r;
    }
  }
  for (const Result* r : fastest) {
    const std::size_t bytes = 4 * rows_of(r->problem) * cols_of(r->problem);
    const auto copy_gbps = measured_copy_gbps(bytes);
    if (!copy_gbps) break;
    notes.push_back(fmt::format("{}: a copy of the same bytes moves {:.0f} GB/s ({:.3g} µs); {} {:.1f} % of it",
                                dims_text(r->problem), *copy_gbps, 2e-3 * static_cast<double>(bytes) / *copy_gbps,
                                r->variant, 100 * r->gbps / *copy_gbps));
  }
  return notes;
}

std::unique_ptr<Instance> make_instance_of(const Problem& p, std::uint64_t seed) {
  const std::size_t rows = rows_of(p), cols = cols_of(p);
  auto in = random_inputs("transpose", {"a"}, rows * cols, seed, -1.0f, 1.0f);
  in->shape = {rows, cols};
  const auto& a = in->inputs[0];
  fill_expected(*in,
                [&](std::size_t i) { return static_cast<double>(a[transpose_problem::source_of(i, rows, cols)]); });
  return in;
}

Lesson make_lesson() {
  Lesson l;
  l.title = "Transpose";
  l.summary =
      "b = transpose(a): coalesced reads and writes through a shared-memory tile, the bank conflicts a padding "
      "column removes, and whole 32-byte sectors at any shape";
  l.sources = {"kernels/transpose/transpose.cu"};
  l.size_help = "rows = columns of the square matrix (--shape ROWSxCOLS for others)";
  l.default_n = 4096;
  l.max_n = 32768;
  for (int p = 5; p <= 14; ++p) l.sweep.push_back(std::int64_t{1} << p);  // 32 ... 16384
  // Empty, one element, under and over a tile, wide and tall, a single row or column (of a length
  // no multiple of 4), no multiple of a tile or a warp on either side, rows a multiple of a sector
  // (8) and not, fewer rows than whole_sectors' 7 extra ones, more than its 128-row tile.
  l.test_problems = {rectangle(0, 7),    rectangle(7, 0),      rectangle(1, 1),   rectangle(31, 31),
                     rectangle(33, 33),  rectangle(100, 3),    rectangle(3, 100), rectangle(1, 500),
                     rectangle(501, 1),  rectangle(5, 77),     rectangle(24, 40), rectangle(129, 1025),
                     rectangle(264, 65), rectangle(1000, 1000)};
  l.problem = problem_of;
  l.parse_shape = parse_shape;
  l.shape_help = "ROWSxCOLS, e.g. 4096x1000";
  l.counts = counts_of;
  l.footprint = footprint_of;
  l.make_instance = make_instance_of;
  l.summary_notes = copy_at_each_shape;
  l.variants = {
      {"cpu_naive",
       "One CPU thread in a's order: reads consecutive, writes a row of b apart",
       {{Backend::cpu, cpu("cpu_naive", tr::cpu_naive)}}},
      {"cpu_blocked",
       "One CPU thread, 32 x 32 tiles that stay in the cache",
       {{Backend::cpu, cpu("cpu_blocked", tr::cpu_blocked)}}},
      {"cpu_threads",
       "Every CPU core (OpenMP), the tiles split between them",
       {{Backend::cpu, cpu("cpu_threads", tr::cpu_threads)}}},
      {"naive",
       "A thread per element: reads coalesced, each warp's writes 32 sectors apart",
       kernel_backends("naive", kExact,
                       [](const Inputs& in, std::span<float> out, const Launch& launch) {
                         tr::naive(in[0], out, launch.shape[0], launch.shape[1], launch.block);
                       }),
       {},
       false,
       {grid_fits(8)}},
      {"shared_tile",
       "A 32 x 32 tile through shared memory: both sides coalesced, 32-way bank conflicts",
       kernel_backends("shared_tile", kExact, tiles(tr::shared_tile)),
       {},
       true,
       {grid_fits(32)}},
      {"padded_tile",
       "The tile one column wider (32 x 33): no bank conflicts",
       kernel_backends("padded_tile", kExact, tiles(tr::padded_tile)),
       {},
       true,
       {grid_fits(32)}},
      {"padded_rows",
       "The padded tile with 32 x 8 threads, 4 elements each",
       kernel_backends("padded_rows", kExact, tiles(tr::padded_rows)),
       {},
       true,
       {grid_fits(32)}},
      {"whole_sectors",
       "b written in whole 32-byte sectors at any shape, blocks down a's columns, 64 or 128-row tiles",
       kernel_backends("whole_sectors", kExact, tiles(tr::whole_sectors)),
       {},
       true},
  };
  return l;
}

}  // namespace

// Lesson 12: b = transpose(a), a ladder that changes only the order of the accesses.
const Lesson& transpose_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
