// The exercises and the sizes each is graded at: fixed sizes aimed at the usual mistakes, then
// sizes drawn from the seed, so that a kernel cannot be written for the tests.
#include <fmt/format.h>

#include <map>
#include <random>

#include "grading/grading.hpp"
#include "registry.hpp"

namespace gpulab::grading {

namespace {

using Rng = std::mt19937_64;

std::int64_t uniform(Rng& rng, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
}
int any_block(Rng& rng) {
  constexpr int blocks[] = {32, 64, 96, 128, 256, 512, 1000, 1024};
  return blocks[uniform(rng, 0, 7)];
}

std::int64_t dim(const Problem& p, const std::string& name) {
  for (const auto& [key, value] : p.dims) {
    if (key == name) return value;
  }
  return p.n;
}

std::int64_t blocks_for(std::int64_t n, std::int64_t block) { return (n + block - 1) / block; }

// The lesson's own problem of size n, or of a shape in its --shape syntax.
Problem sized(const std::string& lesson, std::int64_t n) { return find_lesson(lesson)->problem(n); }
Problem shaped(const std::string& lesson, const std::string& shape) { return find_lesson(lesson)->parse_shape(shape); }

// The random sizes of lesson `id`'s exercise: its own stream of the run's seed.
Rng stream_of(std::uint64_t seed, const std::string& id) {
  return Rng(seed * 100 + static_cast<std::uint64_t>(std::stoi(id)));
}

// `count` sizes of lesson `id` in [lo, hi], each with any block.
void add_random_sizes(std::vector<GradeCase>& cases, const std::string& id, std::uint64_t seed, std::int64_t lo,
                      std::int64_t hi, int count = 2) {
  Rng rng = stream_of(seed, id);
  for (int i = 0; i < count; ++i)
    cases.push_back({sized(id, uniform(rng, lo, hi)), any_block(rng), "a size drawn at random"});
}

// ---- 01 vector add

Exercise vector_add() {
  Exercise e{"01", "01_vector_add", "exercises/01_vector_add/vector_add_exercise.cu",
             "c[i] = a[i] + b[i] for every i, and a grid that covers the array"};
  e.cases = [](std::uint64_t seed) {
    std::vector<GradeCase> c = {
        {sized("01", 1), 256, "a single element: one thread of one block does the work"},
        {sized("01", 31), 32, "fewer elements than a block has threads"},
        {sized("01", 1000), 256, "n not a multiple of the block: the last block's extra threads must not write"},
        {sized("01", 1024), 256, "an exact multiple of the block: no block more than needed"},
        {sized("01", 1025), 1024, "one element more than a whole block: the grid is rounded up, not down"},
        {sized("01", 100000), 128, "many blocks: each thread's element comes from blockIdx.x as well as threadIdx.x"},
    };
    add_random_sizes(c, "01", seed, 2, 200000);
    return c;
  };
  e.unwritten = [](const Problem& p, int block) {
    return fmt::format(
        "n = {} at {} threads per block needs {} block{} (n / block, rounded up). Does the launch "
        "ask for that many, and does each thread compute its own i = blockIdx.x · blockDim.x + "
        "threadIdx.x?",
        p.n, block, blocks_for(p.n, block), blocks_for(p.n, block) == 1 ? "" : "s");
  };
  return e;
}

// ---- 02 thread hierarchy

Exercise thread_hierarchy() {
  Exercise e{"02", "02_thread_hierarchy", "exercises/02_thread_hierarchy/thread_hierarchy_exercise.cu",
             "y = 2x + 1 from a 2-D grid of 2-D blocks smaller than the array: global index and grid-stride loop"};
  e.cases = [](std::uint64_t seed) {
    std::vector<GradeCase> c = {
        {sized("02", 1), 256, "a single element"},
        {sized("02", 31), 64, "fewer elements than one block's threads"},
        {sized("02", 2047), 256, "just under one pass of the grid (8 blocks × 256 threads = 2048)"},
        {sized("02", 2049), 256, "one element more than the grid has threads: it needs the loop"},
        {sized("02", 100000), 1000, "blocks of 32 × 31 threads: the thread's number counts x first, then y"},
        {sized("02", 65536), 32, "blocks of 32 × 1: the block's number counts gridDim.x blocks per grid row"},
    };
    add_random_sizes(c, "02", seed, 2, 200000);
    return c;
  };
  e.unwritten = [](const Problem& p, int block) {
    const std::int64_t threads = 8 * 32 * std::max(1, block / 32);
    return fmt::format(
        "the grid has 8 blocks of 32 × {} threads, {} threads in all, for n = {}. Does each thread "
        "start at block number × threads per block + its number in the block, and step by all {} "
        "threads of the grid until i >= n?",
        std::max(1, block / 32), threads, p.n, threads);
  };
  return e;
}

// ---- 03 matrix add

Exercise matrix_add() {
  Exercise e{"03", "03_matrix_add", "exercises/03_matrix_add/matrix_add_exercise.cu",
             "C = A + B with one thread per element on a 2-D grid that covers the matrix"};
  e.cases = [](std::uint64_t seed) {
    std::vector<GradeCase> c = {
        {sized("03", 1), 256, "a 1 × 1 matrix"},
        {sized("03", 31), 256, "a matrix smaller than one block's width (32)"},
        {sized("03", 33), 256, "one column and one row past whole blocks of 32 × 8: both guards"},
        {sized("03", 100), 1000, "blocks of 32 × 31: rows and columns need different numbers of blocks"},
        {sized("03", 1025), 64, "many blocks in both directions (33 × 513)"},
    };
    add_random_sizes(c, "03", seed, 2, 700);
    return c;
  };
  e.where = [](std::size_t index, const Problem& p) {
    const auto cols = static_cast<std::size_t>(dim(p, "cols"));
    return fmt::format("element (row {}, column {})", index / cols, index % cols);
  };
  e.unwritten = [](const Problem& p, int block) {
    const std::int64_t high = std::max(1, block / 32);
    return fmt::format(
        "a {0} × {0} matrix in blocks of 32 × {1} threads needs a grid of {2} × {3} blocks (x across "
        "the columns, y down the rows). Does the grid cover both, and does each thread take its "
        "column from x and its row from y?",
        p.n, high, blocks_for(p.n, 32), blocks_for(p.n, high));
  };
  return e;
}

// ---- 04 sigmoid

Exercise sigmoid() {
  Exercise e{"04", "04_sigmoid", "exercises/04_sigmoid/sigmoid_exercise.cu",
             "a __device__ σ(x) that is right for every float, applied by a kernel to every element"};
  e.cases = [](std::uint64_t seed) {
    std::vector<GradeCase> c = {
        {sized("04", 1), 256, "a single element"},
        {sized("04", 1000), 256, "n not a multiple of the block: the bounds guard"},
        {sized("04", 4096), 1024, "whole blocks"},
        {sized("04", 4096), 256, "±0, ±inf, NaN, ±1000 and the smallest floats: σ must not overflow into NaN", true},
    };
    add_random_sizes(c, "04", seed, 2, 200000);
    return c;
  };
  e.unwritten = [](const Problem&, int) {
    return std::string("does every thread compute its i (blockIdx.x · blockDim.x + threadIdx.x) and write y[i]?");
  };
  return e;
}

// ---- 05 matmul

Problem matmul_problem(std::int64_t m, std::int64_t n, std::int64_t k) {
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  return {std::max<std::int64_t>(1, std::llround(std::cbrt(work))), {{"m", m}, {"n", n}, {"k", k}}};
}

Exercise matmul() {
  Exercise e{"05", "05_matmul", "exercises/05_matmul/matmul_exercise.cu",
             "C = A · B with 16 × 16 tiles of A and B in shared memory, any m, n, k"};
  e.cases = [](std::uint64_t seed) {
    std::vector<GradeCase> c = {
        {matmul_problem(1, 1, 1), 256, "1 × 1 × 1: a tile that is almost all outside the matrices"},
        {matmul_problem(16, 16, 16), 256, "exactly one tile"},
        {matmul_problem(64, 64, 64), 256, "whole tiles, 4 steps along k: the barriers between the steps"},
        {matmul_problem(17, 33, 45), 256, "nothing a multiple of 16: zeros where a tile sticks out"},
        {matmul_problem(70, 5, 1), 256, "k = 1 and a thin C"},
        {matmul_problem(3, 100, 130), 256, "m, n and k all different: A is m × k, B is k × n"},
    };
    Rng rng = stream_of(seed, "05");
    for (int i = 0; i < 2; ++i) {
      c.push_back({matmul_problem(uniform(rng, 1, 150), uniform(rng, 1, 150), uniform(rng, 1, 150)), 256,
                   "a shape drawn at random"});
    }
    return c;
  };
  e.where = [](std::size_t index, const Problem& p) {
    const auto n = static_cast<std::size_t>(dim(p, "n"));
    return fmt::format("C's element (row {}, column {})", index / n, index % n);
  };
  e.unwritten = [](const Problem&, int) {
    return std::string(
        "does every thread inside C (row < m and column < n) write its sum, including the threads "
        "of tiles that stick out of C?");
  };
  return e;
}

// ---- 06 convolution: the debugging exercise

Exercise conv() {
  Exercise e{"06", "06_conv", "exercises/06_conv/conv_debug_exercise.cu",
             "debugging: make the given shared-memory convolution pass its tests and compute-sanitizer"};
  e.cases = [](std::uint64_t seed) {
    std::vector<GradeCase> c = {
        {shaped("06", "1x1x16x16:1:3x3:1"), 256, "one image, one channel, one whole tile"},
        {shaped("06", "1x3x16x16:2:3x3:1"), 256, "several channels: the tile is reloaded for each"},
        {shaped("06", "3x2x16x16:2:3x3:1"), 256, "several images: image n's channel c is plane n · C + c"},
        {shaped("06", "2x3x20x20:4:3x3:1"), 256, "partial tiles at the right and bottom edges"},
        {shaped("06", "2x2x33x17:3:5x5:2"), 256, "a 5 × 5 filter, padding 2, no side a multiple of 16"},
        {shaped("06", "2x3x40x40:3:3x3:0:2"), 256, "stride 2: the tile's halo grows with the stride"},
    };
    Rng rng = stream_of(seed, "06");
    for (int i = 0; i < 2; ++i) {
      const int r = static_cast<int>(2 * uniform(rng, 0, 2) + 1), stride = static_cast<int>(uniform(rng, 1, 2));
      const int pad = static_cast<int>(uniform(rng, 0, r / 2));
      c.push_back(
          {shaped("06", fmt::format("{}x{}x{}x{}:{}:{}x{}:{}:{}", uniform(rng, 1, 3), uniform(rng, 1, 4),
                                    uniform(rng, r, 60), uniform(rng, r, 60), uniform(rng, 1, 5), r, r, pad, stride)),
           256, "a shape drawn at random"});
    }
    return c;
  };
  e.where = [](std::size_t index, const Problem& p) {
    const std::int64_t h = dim(p, "H"), w = dim(p, "W"), r = dim(p, "R"), s = dim(p, "S"), pad = dim(p, "pad"),
                       stride = dim(p, "stride"), k = dim(p, "K");
    const auto rows = static_cast<std::size_t>((h + 2 * pad - r) / stride + 1);
    const auto cols = static_cast<std::size_t>((w + 2 * pad - s) / stride + 1);
    const std::size_t plane = index / (rows * cols), in_plane = index % (rows * cols);
    return fmt::format("output (image {}, filter {}, row {}, column {})", plane / static_cast<std::size_t>(k),
                       plane % static_cast<std::size_t>(k), in_plane / cols, in_plane % cols);
  };
  return e;
}

// ---- 07 tiny network

Exercise tiny_network() {
  Exercise e{"07", "07_tiny_network", "exercises/07_tiny_network/layer_exercise.cu",
             "bias + sigmoid going forward and the bias gradient (column sums) going backward"};
  e.cases = [](std::uint64_t seed) {
    std::vector<GradeCase> c = {
        {shaped("07", "2x16x1:64"), 256, "the lesson's network: 2 inputs, 16 hidden units, 1 output"},
        {shaped("07", "2x8x1:1"), 256, "a batch of one example"},
        {shaped("07", "3x17x5:31"), 256, "widths that are not powers of two: the bias of column j is bias[j]"},
        {shaped("07", "7x300x10:40"), 256, "300 hidden units: more columns than one block of 256 threads"},
        {shaped("07", "4x5x3:300"), 256, "a batch of 300: each column's sum runs over every row"},
    };
    Rng rng = stream_of(seed, "07");
    for (int i = 0; i < 2; ++i) {
      c.push_back({shaped("07", fmt::format("{}x{}x{}:{}", uniform(rng, 1, 40), uniform(rng, 1, 300),
                                            uniform(rng, 1, 10), uniform(rng, 1, 300))),
                   256, "a network drawn at random"});
    }
    return c;
  };
  return e;
}

}  // namespace

const std::vector<Exercise>& all_exercises() {
  static const std::vector<Exercise> exercises = {vector_add(), thread_hierarchy(), matrix_add(), sigmoid(), matmul(),
                                                  conv(),       tiny_network()};
  return exercises;
}

}  // namespace gpulab::grading
