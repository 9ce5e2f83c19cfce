// Lessons 08–10 on any machine: the 16-bit formats' rounding (lesson 09), the widened bound of a
// product of rounded inputs, timelines as JSON (lesson 08), the lessons' shapes, and the
// data-parallel algorithm on the CPU (lesson 10). The GPU variants run in variants_gpu_test.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/timeline.hpp"
#include "mixed/mixed.hpp"
#include "problems/matmul/matmul_check.hpp"
#include "registry.hpp"

using namespace gpulab;
using Catch::Matchers::Contains;

TEST_CASE("rounding to FP16 keeps 11 significant bits, overflows past 65504 and has subnormals", "[mixed][cpu]") {
  using mixed::round_to_fp16;
  CHECK(round_to_fp16(1.0f) == 1.0f);
  CHECK(round_to_fp16(1.0f + 0x1p-11f) == 1.0f);                // a tie: to even
  CHECK(round_to_fp16(1.0f + 0x1.8p-11f) == 1.0f + 0x1p-10f);   // above the tie: up
  CHECK(round_to_fp16(1.0f + 3 * 0x1p-11f) == 1.0f + 0x1p-9f);  // a tie with an odd last bit: up to even
  CHECK(round_to_fp16(65504.0f) == 65504.0f);
  CHECK(round_to_fp16(65519.0f) == 65504.0f);
  CHECK(std::isinf(round_to_fp16(65520.0f)));
  CHECK(round_to_fp16(-1e6f) == -std::numeric_limits<float>::infinity());
  CHECK(round_to_fp16(0x1p-24f) == 0x1p-24f);  // the smallest subnormal
  CHECK(round_to_fp16(0x1p-26f) == 0.0f);      // under half of it: zero
  CHECK(round_to_fp16(3e-5f) == Approx(3e-5f).epsilon(0.02));
  CHECK(std::isnan(round_to_fp16(std::numeric_limits<float>::quiet_NaN())));
}

TEST_CASE("rounding to BF16 keeps 8 significant bits and float's range; TF32 11 bits", "[mixed][cpu]") {
  CHECK(mixed::round_to_bf16(1.0f + 0x1p-8f) == 1.0f);  // tie to even
  CHECK(mixed::round_to_bf16(1.0f + 0x1.8p-8f) == 1.0f + 0x1p-7f);
  CHECK(mixed::round_to_bf16(1e38f) == Approx(1e38f).epsilon(0.004));
  CHECK(mixed::round_to_tf32(1.0f + 0x1.8p-11f) == 1.0f + 0x1p-10f);
  CHECK(mixed::round_to_tf32(1e30f) == Approx(1e30f).epsilon(0.001));
}

TEST_CASE("the bit patterns are IEEE half and bfloat16", "[mixed][cpu]") {
  CHECK(mixed::fp16_bits(1.0f) == 0x3C00);
  CHECK(mixed::fp16_bits(-2.0f) == 0xC000);
  CHECK(mixed::fp16_bits(65504.0f) == 0x7BFF);
  CHECK(mixed::fp16_bits(1e6f) == 0x7C00);
  CHECK(mixed::fp16_bits(0x1p-24f) == 0x0001);
  CHECK(mixed::fp16_bits(0x1p-14f) == 0x0400);
  CHECK(mixed::fp16_bits(0.0f) == 0x0000);
  CHECK(mixed::fp16_bits(-0.0f) == 0x8000);
  CHECK(mixed::bf16_bits(1.0f) == 0x3F80);
  CHECK(mixed::bf16_bits(-2.0f) == 0xC000);
  CHECK(mixed::bf16_bits(1.0f + 0x1.8p-8f) == 0x3F81);
}

TEST_CASE("a product of FP16-rounded inputs passes the widened bound and fails the FP32 one", "[mixed][cpu]") {
  const int n = 64;
  std::vector<float> a(n * n), b(n * n), rounded_a(n * n), rounded_b(n * n), c(n * n);
  for (int i = 0; i < n * n; ++i) {
    a[i] = std::sin(0.37f * static_cast<float>(i)) * 0.9f;
    b[i] = std::cos(0.11f * static_cast<float>(i)) * 0.9f;
    rounded_a[i] = mixed::round_to_fp16(a[i]);
    rounded_b[i] = mixed::round_to_fp16(b[i]);
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int p = 0; p < n; ++p) sum += static_cast<double>(rounded_a[i * n + p]) * rounded_b[p * n + j];
      c[i * n + j] = static_cast<float>(sum);
    }
  }
  const ProductReference ref = product_reference(a, b, n, n, n, 1);
  CHECK_FALSE(check_product(c, ref, "fp16").passed);
  CHECK(check_product(c, ref, "fp16", input_rounding_scale(n, mixed::unit_roundoff(mixed::Storage::fp16))).passed);
  c[5] += 0.05f;  // a wrong element still fails the widened bound
  CHECK_FALSE(
      check_product(c, ref, "fp16", input_rounding_scale(n, mixed::unit_roundoff(mixed::Storage::fp16))).passed);
}

TEST_CASE("a timeline round-trips through JSON and a corrupt one says what is wrong", "[timeline][cpu]") {
  Timeline t;
  t.variant = "sigmoid_overlap";
  t.device = "a GPU";
  t.n = 100;
  t.streams = 2;
  t.chunks = 2;
  t.spans = {{-1, 0, "copy in", 0, 1},  {-1, 0, "kernel", 1, 1.1},  {-1, 0, "copy out", 1.1, 2},
             {0, 0, "copy in", 0, 0.5}, {0, 0, "kernel", 0.5, 0.6}, {0, 0, "copy out", 0.6, 1.1},
             {1, 1, "copy in", 0.5, 1}, {1, 1, "kernel", 1, 1.1},   {1, 1, "copy out", 1.1, 1.5}};
  const Timeline back = timeline_from_json(timeline_to_json(t));
  CHECK(back.spans.size() == t.spans.size());
  CHECK(back.serial_ms() == 2.0);
  CHECK(back.overlapped_ms() == 1.5);
  const std::string text = format_timeline(back);
  CHECK_THAT(text, Contains("(1.33x)"));
  CHECK_THAT(text, Contains("stream 1"));
  CHECK_THROWS_WITH(timeline_from_json("{\"results\": []}"), Contains("not a GPU Lab timeline"));
  CHECK_THROWS_WITH(timeline_from_json("{\"kind\": \"gpulab-timeline\", \"variant\""), Contains("corrupt timeline"));
  std::string bad = timeline_to_json(t);
  bad.replace(bad.find("\"stream\": 1"), 11, "\"stream\": 7");
  CHECK_THROWS_WITH(timeline_from_json(bad), Contains("outside its streams"));
}

TEST_CASE("a step over GPUs draws a lane per GPU's step and NCCL stream, and GPU 0's events", "[timeline][cpu]") {
  Timeline t;
  t.variant = "data_parallel_cublas_graph";
  t.device = "a GPU";
  t.n = 4096;
  t.gpus = t.streams = 2;
  t.chunks = 2;
  t.spans = {{0, -1, "launch", -0.01, 0},       {0, -1, "join", 0.45, 0.47},      {0, -1, "forward", 0, 0.17},
             {0, 1, "backward", 0.17, 0.22},    {0, 1, "all-reduce", 0.22, 0.32}, {0, 0, "backward", 0.22, 0.40},
             {0, 0, "all-reduce", 0.40, 0.445}, {1, -1, "forward", 0.002, 0.172}, {1, 1, "backward", 0.172, 0.222},
             {1, 1, "all-reduce", 0.222, 0.32}, {1, 0, "backward", 0.222, 0.402}, {1, 0, "all-reduce", 0.402, 0.45}};
  const Timeline back = timeline_from_json(timeline_to_json(t));
  CHECK(back.gpus == 2);
  const std::vector<TimelineLane> lanes = timeline_lanes(back);
  REQUIRE(lanes.size() == 5);
  CHECK(lanes[0].label == "GPU 0 events");
  CHECK(lanes[3].label == "GPU 1 step");
  CHECK(lanes[4].label == "GPU 1 NCCL");
  CHECK(std::count_if(back.spans.begin(), back.spans.end(), lanes[2].holds) == 2);  // GPU 0's all-reduces
  const std::string text = format_timeline(back);
  CHECK_THAT(text, Contains("first start to last end: 450.0 µs") && Contains("after it") && Contains("480.0 µs"));
}

TEST_CASE("lessons 08 and 10 read their shapes and refuse bad ones", "[cli][cpu]") {
  const Lesson& streams = *find_lesson("08");
  const Problem p = streams.parse_shape("1000:7:3");
  CHECK(p.n == 1000);
  for (const char* bad : {"1000", "1000:0:2", "1000:8:65", "-1:8:4", "1000:8:4x"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(streams.parse_shape(bad), std::invalid_argument);
  }
  const Lesson& multi = *find_lesson("10");
  CHECK(multi.parse_shape("784x128x10:128:2").n == 128);
  for (const char* bad : {"784x128x10", "784x128x10:0:2", "784x128x10:128:0", "784x128:128"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(multi.parse_shape(bad), std::invalid_argument);
  }
}
