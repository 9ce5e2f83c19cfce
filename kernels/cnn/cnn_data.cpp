#include "cnn/cnn_data.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "base/mix.hpp"

namespace gpulab::cnn {

const std::array<const char*, kShapeClasses> kShapeNames = {
    "disc",     "square",   "triangle", "plus", "ring", "horizontal stripes", "vertical stripes",
    "diagonal", "checkers", "cross"};

namespace {

// Draw k of image i: uniform in [0, 1).
double draw(std::uint64_t seed, int i, int k) {
  return unit_draw(mix64(mix64(mix64(seed) + static_cast<std::uint64_t>(i)) + static_cast<std::uint64_t>(k)));
}

// Whether pixel (u, v), in units of the shape's half-size around its centre (so the shape spans
// about [-1, 1]²), is inside a shape of the class.
bool inside(int shape, double u, double v) {
  const double r = std::sqrt(u * u + v * v);
  switch (shape) {
    case 0:
      return r <= 1;
    case 1:
      return std::abs(u) <= 0.85 && std::abs(v) <= 0.85;
    case 2:
      return v <= 0.9 && v >= -0.9 && std::abs(u) <= (v + 0.9) / 1.8;  // apex up
    case 3:
      return (std::abs(u) <= 0.3 && std::abs(v) <= 1) || (std::abs(v) <= 0.3 && std::abs(u) <= 1);
    case 4:
      return r <= 1 && r >= 0.55;
    case 5:
      return std::abs(u) <= 1 && std::abs(v) <= 1 && static_cast<int>(std::floor((v + 1) * 2.5)) % 2 == 0;
    case 6:
      return std::abs(u) <= 1 && std::abs(v) <= 1 && static_cast<int>(std::floor((u + 1) * 2.5)) % 2 == 0;
    case 7:
      return std::abs(u - v) <= 0.35 && std::abs(u) <= 1 && std::abs(v) <= 1;
    case 8:
      return std::abs(u) <= 1 && std::abs(v) <= 1 &&
             (static_cast<int>(std::floor((u + 1) * 2)) + static_cast<int>(std::floor((v + 1) * 2))) % 2 == 0;
    default:
      return (std::abs(u - v) <= 0.3 || std::abs(u + v) <= 0.3) && std::abs(u) <= 1 && std::abs(v) <= 1;
  }
}

void check(int count, int side) {
  if (count < 0 || side < 4 || side > 256) {
    throw std::invalid_argument("cnn images: a count of 0 or more, a side from 4 to 256");
  }
}

// Scales each image to mean 0 and deviation 1 over its pixels (as a data loader's normalisation does).
void normalise(Images& images) {
  const std::size_t size = static_cast<std::size_t>(images.channels) * images.side * images.side;
  for (int i = 0; i < images.count; ++i) {
    float* p = images.x.data() + static_cast<std::size_t>(i) * size;
    double sum = 0, squares = 0;
    for (std::size_t k = 0; k < size; ++k) sum += p[k];
    const double mean = sum / static_cast<double>(size);
    for (std::size_t k = 0; k < size; ++k) squares += (p[k] - mean) * (p[k] - mean);
    const double deviation = std::max(std::sqrt(squares / static_cast<double>(size)), 1e-3);
    for (std::size_t k = 0; k < size; ++k) p[k] = static_cast<float>((p[k] - mean) / deviation);
  }
}

}  // namespace

Images make_shapes(int count, int side, std::uint64_t seed) {
  check(count, side);
  Images images{count, 3, side, {}, {}};
  const std::size_t plane = static_cast<std::size_t>(side) * side;
  images.x.resize(static_cast<std::size_t>(count) * 3 * plane);
  images.label.resize(static_cast<std::size_t>(count));
#pragma omp parallel for schedule(static)
  for (int i = 0; i < count; ++i) {
    const int shape = i % kShapeClasses;
    images.label[static_cast<std::size_t>(i)] = shape;
    // Half-size 20-40 % of the side, the centre anywhere the shape mostly fits, a turn of up to
    // ±25° (stripes and diagonals keep their direction), two colours at least 0.5 apart in one channel.
    const double half = side * (0.2 + 0.2 * draw(seed, i, 0));
    const double cx = half + (side - 2 * half) * draw(seed, i, 1), cy = half + (side - 2 * half) * draw(seed, i, 2);
    const double turn = (draw(seed, i, 3) - 0.5) * 0.87, cs = std::cos(turn), sn = std::sin(turn);
    double fg[3], bg[3];
    for (int c = 0; c < 3; ++c) {
      fg[c] = draw(seed, i, 4 + c);
      bg[c] = draw(seed, i, 7 + c);
    }
    const int strong = static_cast<int>(draw(seed, i, 10) * 3) % 3;
    if (std::abs(fg[strong] - bg[strong]) < 0.5) fg[strong] = bg[strong] < 0.5 ? bg[strong] + 0.5 : bg[strong] - 0.5;
    float* image = images.x.data() + static_cast<std::size_t>(i) * 3 * plane;
    for (int y = 0; y < side; ++y) {
      for (int x = 0; x < side; ++x) {
        const double dx = (x + 0.5 - cx) / half, dy = (y + 0.5 - cy) / half;
        const double u = cs * dx + sn * dy, v = -sn * dx + cs * dy;
        const bool on = inside(shape, u, v);
        for (int c = 0; c < 3; ++c) {
          const double noise = 0.15 * (draw(seed, i, 11 + (y * side + x) * 3 + c) - 0.5);
          image[static_cast<std::size_t>(c) * plane + static_cast<std::size_t>(y) * side + x] =
              static_cast<float>((on ? fg[c] : bg[c]) + noise);
        }
      }
    }
  }
  normalise(images);
  return images;
}

Images make_noise(int count, int side, std::uint64_t seed) {
  check(count, side);
  Images images{count, 3, side, {}, {}};
  images.x.resize(static_cast<std::size_t>(count) * 3 * side * side);
  images.label.resize(static_cast<std::size_t>(count));
  for (std::size_t k = 0; k < images.x.size(); ++k) {
    images.x[k] = static_cast<float>(2 * unit_draw(mix64(mix64(seed) + k)) - 1);
  }
  for (int i = 0; i < count; ++i) {
    images.label[static_cast<std::size_t>(i)] = static_cast<int>(unit_draw(mix64(mix64(seed + 1) + i)) * kShapeClasses);
  }
  return images;
}

}  // namespace gpulab::cnn
