// Lesson 06's own checks: the convolution checker fails on wrong outputs (full and sampled) with
// each algorithm's bound, the shapes parse and refuse what the kernels cannot take, and the
// launchers refuse buffers that do not match the shape.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "common/backend.hpp"
#include "common/random.hpp"
#include "common/results.hpp"
#include "common/targets.hpp"
#include "conv/conv.hpp"
#include "problems/conv/conv_check.hpp"
#include "registry.hpp"
#include "support/lesson_runs.hpp"

using namespace gpulab;
using Catch::Matchers::Contains;

namespace {

struct Layer {
  conv::Shape shape;
  std::vector<float> x, w, bias, y;
};

Layer random_layer(const conv::Shape& s, std::uint64_t seed) {
  Layer l{s, std::vector<float>(s.input_size()), std::vector<float>(s.filter_size()),
          std::vector<float>(static_cast<std::size_t>(s.k)), std::vector<float>(s.output_size())};
  fill_uniform(l.x, seed, 0, -1.0f, 1.0f);
  fill_uniform(l.w, seed, 1, -1.0f, 1.0f);
  fill_uniform(l.bias, seed, 2, -1.0f, 1.0f);
  conv::cpu_direct(l.x, l.w, l.y, s);
  return l;
}

std::size_t at(const conv::Shape& s, int n, int k, int p, int q) {
  return ((static_cast<std::size_t>(n) * s.k + k) * s.p() + p) * s.q() + q;
}

}  // namespace

TEST_CASE("the convolution check passes a correct output and names the first wrong element", "[conv]") {
  const std::uint64_t seed = test::test_seed();
  CAPTURE(seed);
  const conv::Shape s{2, 3, 13, 11, 4, 3, 3, 1, 1};
  Layer l = random_layer(s, seed);
  const ConvReference ref = conv_reference(l.x, l.w, l.bias, s, seed);
  CHECK_FALSE(ref.sampled);
  for (auto arithmetic :
       {ConvArithmetic::direct, ConvArithmetic::winograd, ConvArithmetic::winograd_4x4, ConvArithmetic::fft}) {
    CHECK(check_conv(l.y, ref, arithmetic, false, "conv test").passed);
  }

  SECTION("one element off by half (a product of two inputs of up to 1 too many, say)") {
    l.y[at(s, 1, 2, 5, 4)] += 0.5f;
    for (auto arithmetic :
         {ConvArithmetic::direct, ConvArithmetic::winograd, ConvArithmetic::winograd_4x4, ConvArithmetic::fft}) {
      const CheckResult r = check_conv(l.y, ref, arithmetic, false, "conv test");
      CHECK_FALSE(r.passed);
      CHECK_THAT(r.message, Contains("(n 1, k 2, p 5, q 4)"));
    }
  }
  SECTION("an element never written") {
    poison(std::span<float>(l.y).subspan(at(s, 0, 3, 12, 10), 1));
    const CheckResult r = check_conv(l.y, ref, ConvArithmetic::direct, false, "conv test");
    CHECK_FALSE(r.passed);
    CHECK_THAT(r.message, Contains("never written"));
  }
  SECTION("bias and ReLU: checked against max(0, x ⋆ w + b), and missing them fails") {
    std::vector<float> fused = l.y;
    for (std::size_t i = 0; i < fused.size(); ++i) {
      fused[i] = std::max(0.0f, fused[i] + l.bias[i / (static_cast<std::size_t>(s.p()) * s.q()) % s.k]);
    }
    CHECK(check_conv(fused, ref, ConvArithmetic::direct, true, "conv test").passed);
    CHECK_FALSE(check_conv(l.y, ref, ConvArithmetic::direct, true, "conv test").passed);
  }
}

TEST_CASE("a sampled convolution check still catches garbage and unwritten outputs", "[conv]") {
  const std::uint64_t seed = test::test_seed();
  CAPTURE(seed);
  // Over kFullCheckMacs: 1 × 1 × 1100 × 1100 → 1 with 13 × 13 filters is 2.04·10^8 multiply-adds.
  const conv::Shape s{1, 1, 1100, 1100, 1, 13, 13, 6, 1};
  Layer l = random_layer(s, seed);
  const ConvReference ref = conv_reference(l.x, l.w, l.bias, s, seed);
  REQUIRE(ref.sampled);
  CHECK(check_conv(l.y, ref, ConvArithmetic::direct, false, "conv test").passed);
  SECTION("a whole row wrong") {
    for (int q = 0; q < s.q(); ++q) l.y[at(s, 0, 0, s.p() - 1, q)] *= 1.01f;  // the last row is always sampled
    CHECK_FALSE(check_conv(l.y, ref, ConvArithmetic::direct, false, "conv test").passed);
  }
  SECTION("never written, outside the sample") {
    poison(std::span<float>(l.y).subspan(at(s, 0, 0, 700, 3), 1));
    const CheckResult r = check_conv(l.y, ref, ConvArithmetic::direct, false, "conv test");
    CHECK_FALSE(r.passed);
    CHECK_THAT(r.message, Contains("never written"));
  }
}

TEST_CASE("layer shapes (--shape) parse, and what the kernels cannot take is refused", "[conv]") {
  const Lesson& lesson = *find_lesson("06");
  const Problem p = lesson.parse_shape("64x64x56x56:64:3x3");
  CHECK(dims_text(p) == "64x64x56x56→64 3x3 p1 s1");
  CHECK(dims_text(lesson.parse_shape("1x3x20x18:9:4x4:0:2")) == "1x3x20x18→9 4x4 p0 s2");
  for (const char* bad : {"64x64x56:64:3x3", "1x1x8x8:1:40x40", "1x1x8x8:1:3x3:1:9", "1x1x4x4:1:9x9:0", "1x0x8x8:1:3x3",
                          "1x1x99999999999x8:1:3x3"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(lesson.parse_shape(bad), std::invalid_argument);
  }
}

TEST_CASE("the convolution launchers refuse buffers that do not match the shape", "[conv]") {
  const conv::Shape s{1, 2, 8, 8, 3, 3, 3, 1, 1};
  UseDevice on_emulator(Backend::emulated);
  DeviceBuffer<float> x(s.input_size(), "x"), w(s.filter_size(), "w"), y(s.output_size() - 1, "y");
  CHECK_THROWS_AS(conv::direct(x.span(), w.span(), y.span(), s, 256), std::invalid_argument);
  CHECK_THROWS_AS(conv::implicit_gemm(x.span(), w.span(), y.span(), s), std::invalid_argument);
  CHECK_FALSE(conv::winograd_applies({1, 2, 8, 8, 3, 5, 5, 2, 1}));
  CHECK_FALSE(conv::winograd_applies({1, 2, 8, 8, 3, 3, 3, 1, 2}));
}
