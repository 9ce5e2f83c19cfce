#include "cnn/cnn.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "base/mix.hpp"
#include "cnn/cnn_gpu.hpp"

namespace gpulab::cnn {

std::size_t Layout::size(Block b) const {
  const auto n = [](int x) { return static_cast<std::size_t>(x); };
  switch (b) {
    case w1:
      return n(c1) * n(channels) * 9;
    case b1:
      return n(c1);
    case w2:
      return n(c2) * n(c1) * 9;
    case b2:
      return n(c2);
    case w3:
      return n(hidden) * n(features());
    case b3:
      return n(hidden);
    case w4:
      return n(classes) * n(hidden);
    case b4:
      return n(classes);
    case blocks:
      break;
  }
  return 0;
}

std::size_t Layout::offset(Block b) const {
  std::size_t at = 0;
  for (int k = 0; k < b; ++k) at += size(static_cast<Block>(k));
  return at;
}

int Layout::fan_in(Block b) const {
  switch (b) {
    case w1:
    case b1:
      return channels * 9;
    case w2:
    case b2:
      return c1 * 9;
    case w3:
    case b3:
      return features();
    case w4:
    case b4:
    case blocks:
      break;
  }
  return hidden;
}

double Layout::macs() const {
  const double s = side, s1 = side1();
  return s * s * c1 * channels * 9 + s1 * s1 * c2 * c1 * 9 + static_cast<double>(features()) * hidden +
         static_cast<double>(hidden) * classes;
}

void check_layout(const Layout& net) {
  if (net.side < 4 || net.side > 256 || net.side % 4 != 0) {
    throw std::invalid_argument("cnn: the image side must be a multiple of 4 from 4 to 256 (two 2 × 2 pools), not " +
                                std::to_string(net.side));
  }
  for (int width : {net.channels, net.c1, net.c2, net.hidden, net.classes}) {
    if (width < 1 || width > 4096) throw std::invalid_argument("cnn: every width must be from 1 to 4096");
  }
}

std::string to_string(const Layout& net) {
  return std::to_string(net.side) + "×" + std::to_string(net.side) + "×" + std::to_string(net.channels) + " → " +
         std::to_string(net.c1) + " → " + std::to_string(net.c2) + " → " + std::to_string(net.features()) + " → " +
         std::to_string(net.hidden) + " → " + std::to_string(net.classes);
}

std::vector<float> initial_parameters(const Layout& net, std::uint64_t seed) {
  check_layout(net);
  std::vector<float> params(net.parameters());
  for (int b = 0; b < Layout::blocks; ++b) {
    const auto block = static_cast<Layout::Block>(b);
    const double bound = 1.0 / std::sqrt(static_cast<double>(net.fan_in(block)));
    const std::size_t first = net.offset(block);
    for (std::size_t i = 0; i < net.size(block); ++i) {
      params[first + i] = static_cast<float>(bound * (2 * unit_draw(mix64(mix64(seed) + first + i)) - 1));
    }
  }
  return params;
}

double largest_layer_error(const Layout& net, std::span<const float> got, std::span<const double> expected,
                           Layout::Block* worst) {
  double largest = 0;
  for (int b = 0; b < Layout::blocks; b += 2) {  // w1 and b1, w2 and b2, ...: stored one after the other
    const auto block = static_cast<Layout::Block>(b);
    double diff = 0, norm = 0;
    for (std::size_t i = net.offset(block); i < net.offset(static_cast<Layout::Block>(b + 2)); ++i) {
      diff += (got[i] - expected[i]) * (got[i] - expected[i]);
      norm += expected[i] * expected[i];
    }
    const double error = norm > 0 ? std::sqrt(diff / norm) : (diff > 0 ? INFINITY : 0.0);
    if (std::isnan(error) || error > largest) {
      largest = error;
      if (worst != nullptr) *worst = block;
      if (std::isnan(error)) break;  // NaN is the worst there is
    }
  }
  return largest;
}

std::string layer_name(Layout::Block b) {
  static const char* const names[] = {"conv1", "conv2", "fc1", "fc2"};
  return b >= 0 && b < Layout::blocks ? names[b / 2] : "?";
}

// Enough shares for about 2048 blocks (each one tile of 32 filters by 64 of the 9 · channels + 1
// columns): an H100 runs 3 at once on each of its 132 multiprocessors, and with 5 or more rounds of
// them the last, partly empty round costs little. But none under 128 positions (4 k-steps of 32),
// where the block's set-up and its write-out would outweigh its sums.
int implicit_gemm_shares(int batch, int side, int channels, int filters) {
  const long positions = long(batch) * side * side;
  const long tiles = long((filters + 31) / 32) * ((9 * channels + 1 + 63) / 64);
  return static_cast<int>(std::clamp<long>(std::min((positions + 127) / 128, 2048 / std::max(1L, tiles)), 1, 2048));
}

}  // namespace gpulab::cnn
