#include "mlp/mlp.hpp"

#include <cmath>

#include "base/mix.hpp"

namespace gpulab::mlp {

std::size_t Layout::weight_offset(int l) const {
  std::size_t offset = 0;
  for (int i = 0; i < l; ++i) offset += weights(i) + static_cast<std::size_t>(sizes[static_cast<std::size_t>(i) + 1]);
  return offset;
}

double Layout::macs() const {
  double total = 0;
  for (int l = 0; l < layers(); ++l) total += static_cast<double>(weights(l));
  return total;
}

void check_layout(const Layout& layout) {
  if (layout.sizes.size() < 2 || layout.sizes.size() > 9) {
    throw std::invalid_argument("mlp: a network has 1 to 8 layers (2 to 9 widths)");
  }
  for (int width : layout.sizes) {
    if (width < 1 || width > 8192) throw std::invalid_argument("mlp: a layer has 1 to 8192 units");
  }
}

std::string to_string(const Layout& layout) {
  std::string text;
  for (int width : layout.sizes) text += (text.empty() ? "" : "x") + std::to_string(width);
  return text;
}

std::vector<float> initial_parameters(const Layout& layout, std::uint64_t seed) {
  check_layout(layout);
  std::vector<float> params(layout.parameters(), 0.0f);
  for (int l = 0; l < layout.layers(); ++l) {
    const double in = layout.sizes[static_cast<std::size_t>(l)], out = layout.sizes[static_cast<std::size_t>(l) + 1];
    const double limit = std::sqrt(6.0 / (in + out));
    const std::size_t first = layout.weight_offset(l);
    for (std::size_t i = 0; i < layout.weights(l); ++i) {
      const double unit = unit_draw(mix64(mix64(seed) + first + i));
      params[first + i] = static_cast<float>(limit * (2 * unit - 1));
    }
  }
  return params;
}

}  // namespace gpulab::mlp
