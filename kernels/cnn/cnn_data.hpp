#pragma once
// Images to train the CNN on, made by GPU Lab itself (no download: no machine here reaches the
// network at run time): ten classes of shapes drawn at random places, sizes and colours, over a
// background of another colour, with noise. A pure function of (seed, image), so every machine
// draws the same set; a test set is the same classes from another seed.
#include <array>
#include <cstdint>
#include <vector>

namespace gpulab::cnn {

inline constexpr int kShapeClasses = 10;
// disc, square, triangle, plus, ring, horizontal stripes, vertical stripes, diagonal, checkers, cross
extern const std::array<const char*, kShapeClasses> kShapeNames;

struct Images {
  int count = 0, channels = 3, side = 32;
  std::vector<float> x;    // count × channels × side × side, about mean 0 and deviation 1 per image
  std::vector<int> label;  // count classes, 0 .. 9
};

// `count` images of side × side pixels, 3 channels, classes in turn (image i is of class i % 10).
Images make_shapes(int count, int side, std::uint64_t seed);
// The seed program's input for timing: uniform noise and random labels (nothing to learn).
Images make_noise(int count, int side, std::uint64_t seed);

}  // namespace gpulab::cnn
