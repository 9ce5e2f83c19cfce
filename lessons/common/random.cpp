#include "common/random.hpp"

#include <algorithm>
#include <cstddef>
#include <random>
#include <set>

#include "base/mix.hpp"

namespace gpulab {

void fill_uniform(std::span<float> out, std::uint64_t seed, std::uint64_t stream, float lo, float hi) {
  const std::uint64_t key = mix64(seed ^ mix64(stream));
  const auto n = static_cast<std::ptrdiff_t>(out.size());
  const double width = static_cast<double>(hi) - lo;
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const double unit = unit_draw(mix64(key + static_cast<std::uint64_t>(i)));
    out[static_cast<std::size_t>(i)] = static_cast<float>(lo + width * unit);
  }
}

void fill_bytes(std::span<unsigned char> out, std::uint64_t seed, std::uint64_t stream, double share,
                unsigned char common) {
  const std::uint64_t key = mix64(seed ^ mix64(stream));
  const auto n = static_cast<std::ptrdiff_t>(out.size());
  // The draw's top 53 bits decide common or not; its low byte is the value otherwise.
  const auto threshold = static_cast<std::uint64_t>(share * 0x1.0p53);
#pragma omp parallel for schedule(static)
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    const std::uint64_t draw = mix64(key + static_cast<std::uint64_t>(i));
    out[static_cast<std::size_t>(i)] = (draw >> 11) < threshold ? common : static_cast<unsigned char>(draw & 0xFF);
  }
}

std::vector<std::int64_t> sample_indices(std::int64_t extent, std::int64_t count, std::uint64_t seed) {
  if (extent <= 0) return {};
  std::set<std::int64_t> chosen = {0, extent - 1};
  std::uint64_t state = mix64(seed);
  while (static_cast<std::int64_t>(chosen.size()) < std::min(count, extent)) {
    chosen.insert(static_cast<std::int64_t>(mix64(state++) % static_cast<std::uint64_t>(extent)));
  }
  return {chosen.begin(), chosen.end()};
}

std::uint64_t fresh_seed() {
  std::random_device device;
  return (std::uint64_t{device()} << 32 | device()) % 1000000000ull;  // short enough to retype
}

}  // namespace gpulab
