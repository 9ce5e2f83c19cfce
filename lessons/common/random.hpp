#pragma once
// Reproducible random inputs: element i of stream s under seed k is a pure function of (k, s, i),
// so large arrays fill in parallel and `--seed k` replays a run exactly.
#include <cstdint>
#include <span>
#include <vector>

namespace gpulab {

// Uniform in [lo, hi] (hi itself only through rounding).
void fill_uniform(std::span<float> out, std::uint64_t seed, std::uint64_t stream, float lo, float hi);

// Bytes: with probability `share` the one value `common`, otherwise uniform over 0 … 255 (share 0:
// uniform bytes; share 1: every byte the same — a histogram's worst contention).
void fill_bytes(std::span<unsigned char> out, std::uint64_t seed, std::uint64_t stream, double share,
                unsigned char common);

// `count` distinct indices of [0, extent), sorted: the first and the last always, the rest drawn
// from the seed (which elements a sampled check looks at).
std::vector<std::int64_t> sample_indices(std::int64_t extent, std::int64_t count, std::uint64_t seed);

// A fresh seed for a run that did not ask for one.
std::uint64_t fresh_seed();

}  // namespace gpulab
