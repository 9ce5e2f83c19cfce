// Lesson 06, convolution: the workload, its variants, what it counts and how it is checked.
#include "common/lesson.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <regex>

#include "common/array_runs.hpp"
#include "common/random.hpp"
#include "common/targets.hpp"
#include "conv/conv.hpp"
#include "conv/conv_library.hpp"
#include "matmul/matmul.hpp"
#include "matmul/matmul_cublas.hpp"
#include "problems/conv/conv_check.hpp"

namespace gpulab {

namespace {

using conv::Shape;  // the convolution's nine sizes (not the array runs' list of them)
using Span = std::span<const float>;
// One variant's work, on host spans (CPU) or device spans (GPU, emulated). `bias` is used by the
// variants that add it; `workspace` holds what the workspace hook asked for.
using ConvFunction = std::function<void(Span x, Span w, Span bias, std::span<float> y, const Shape&, int block,
                                        std::span<float> workspace)>;

// What a variant computes, and so what it is checked against.
struct Output {
  ConvArithmetic arithmetic = ConvArithmetic::direct;
  bool bias_relu = false;  // ReLU(x ⋆ w + bias) rather than x ⋆ w
};

// x, w and bias (inputs 0, 1, 2), the shape's nine sizes (Shape's order), and the float64
// reference with each element's bound.
struct ConvInstance : ArrayInstance {
  Shape conv_shape;
  ConvReference reference;
  std::size_t output_size() const override { return conv_shape.output_size(); }
};

Shape shape_of(const Problem& p) {
  std::map<std::string, int> d;
  for (const auto& [key, value] : p.dims) d[key] = static_cast<int>(value);
  return {d["N"], d["C"], d["H"], d["W"], d["K"], d["R"], d["S"], d["pad"], d["stride"]};
}

gpulab::Shape sizes_of(const Shape& s) {
  return {static_cast<std::size_t>(s.n), static_cast<std::size_t>(s.c),   static_cast<std::size_t>(s.h),
          static_cast<std::size_t>(s.w), static_cast<std::size_t>(s.k),   static_cast<std::size_t>(s.r),
          static_cast<std::size_t>(s.s), static_cast<std::size_t>(s.pad), static_cast<std::size_t>(s.stride)};
}
Shape shape_of(const gpulab::Shape& sizes) {
  const auto at = [&](std::size_t i) { return static_cast<int>(sizes[i]); };
  return {at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7), at(8)};
}

// A ConvFunction as the array runs call it.
ArrayFunction array_function(ConvFunction fn) {
  return [fn](const Inputs& in, std::span<float> y, const Launch& launch) {
    fn(in[0], in[1], in[2], y, shape_of(launch.shape), launch.block, launch.workspace);
  };
}

ArrayCheck conv_check(Output output) {
  return check_with<ConvInstance>([output](std::span<const float> y, const ConvInstance& in, const std::string& what) {
    return check_conv(y, in.reference, output.arithmetic, output.bias_relu, what);
  });
}

// ---- adapters from each function's own signature

using CpuFunction = void (*)(Span, Span, std::span<float>, const Shape&);

RunFactory cpu(const std::string& name, CpuFunction fn) {
  return cpu_array_run(name, conv_check({}),
                       array_function([fn](Span x, Span w, Span, std::span<float> y, const Shape& s, int,
                                           std::span<float>) { fn(x, w, y, s); }));
}

// How a device variant runs: its function, the threads per block it launches (0: a library),
// what it computes, its workspace, and an optional note (the algorithm a library chose).
struct DeviceVariant {
  ConvFunction fn;
  std::function<int(int block)> threads;
  Output output;
  std::function<std::size_t(const Shape&)> workspace = {};
  std::function<std::string(const Shape&)> note = {};
  // Where the arithmetic depends on the shape (a library's choice), the bound to check against.
  std::function<ConvArithmetic(const Shape&)> arithmetic_of = {};
};

// A variant on every device backend this build has, from one kernel source. The libraries'
// (cuBLAS, cuFFT, cuDNN) are skipped on the emulator, saying why.
std::vector<std::pair<Backend, RunFactory>> device_backends(const std::string& name, const DeviceVariant& v) {
  const auto shape = [](const ArrayInstance& in) { return static_cast<const ConvInstance&>(in).conv_shape; };
  KernelHooks hooks{v.threads};
  if (v.workspace) hooks.workspace = [shape, f = v.workspace](const ArrayInstance& in) { return f(shape(in)); };
  if (v.note) hooks.note = [shape, f = v.note](const ArrayInstance& in) { return f(shape(in)); };
  const ArrayCheck fixed = conv_check(v.output);
  const ArrayCheck check =
      v.arithmetic_of ? ArrayCheck::with([v, shape](std::span<const float> y, const ArrayInstance& in, int block,
                                                    const std::string& what) {
        return conv_check({v.arithmetic_of(shape(in)), v.output.bias_relu})(y, in, block, what);
      })
                      : fixed;
  return gpulab::kernel_backends(name, check, array_function(v.fn), hooks);
}

std::function<int(int)> fixed_threads(int threads) {
  return [threads](int) { return threads; };
}

// A kernel that takes x, w, y and the shape: its threads per block are fixed by its tiles.
using PlainLauncher = void (*)(Span x, Span w, std::span<float> y, const Shape& shape);
DeviceVariant plain(PlainLauncher f, int threads, Output output = {}) {
  return DeviceVariant{
      [f](Span x, Span w, Span, std::span<float> y, const Shape& s, int, std::span<float>) { f(x, w, y, s); },
      fixed_threads(threads), output};
}

const DeviceVariant direct_variant{[](Span x, Span w, Span, std::span<float> y, const Shape& s, int block,
                                      std::span<float>) { conv::direct(x, w, y, s, block); },
                                   [](int block) { return block; },
                                   {}};
// im2col + a GEMM: lesson 05's warp-tiled kernel, or cuBLAS.
DeviceVariant im2col_variant(conv::Gemm gemm, int threads) {
  return DeviceVariant{[gemm](Span x, Span w, Span, std::span<float> y, const Shape& s, int, std::span<float> ws) {
                         conv::im2col_gemm(x, w, y, s, ws, gemm);
                       },
                       fixed_threads(threads),
                       {},
                       conv::im2col_workspace};
}
const DeviceVariant winograd_variant{[](Span x, Span w, Span, std::span<float> y, const Shape& s, int,
                                        std::span<float> ws) { conv::winograd(x, w, y, s, ws); },
                                     fixed_threads(256),
                                     {ConvArithmetic::winograd, false},
                                     conv::winograd_workspace};
const DeviceVariant winograd_4x4_variant{[](Span x, Span w, Span, std::span<float> y, const Shape& s, int,
                                            std::span<float> ws) { conv::winograd_4x4(x, w, y, s, ws); },
                                         fixed_threads(256),
                                         {ConvArithmetic::winograd_4x4, false},
                                         conv::winograd_4x4_workspace};
const DeviceVariant fused_variant{[](Span x, Span w, Span b, std::span<float> y, const Shape& s, int,
                                     std::span<float>) { conv::fused_bias_relu(x, w, b, y, s); },
                                  fixed_threads(256),
                                  {ConvArithmetic::direct, true}};

// The debugging kernel with one bug (or none).
std::vector<std::pair<Backend, RunFactory>> debug_backends(const std::string& name, conv::Bug bug) {
  return device_backends(name, DeviceVariant{[bug](Span x, Span w, Span, std::span<float> y, const Shape& s, int,
                                                   std::span<float>) { conv::debug_tiled(x, w, y, s, bug); },
                                             fixed_threads(256),
                                             {}});
}

DeviceVariant cudnn_variant(bool bias_relu) {
  return DeviceVariant{[bias_relu](Span x, Span w, Span b, std::span<float> y, const Shape& s, int, std::span<float>) {
                         conv::cudnn(x, w, y, s);
                         if (bias_relu) conv::bias_relu(b, y, s);
                       },
                       fixed_threads(0),
                       {ConvArithmetic::direct, bias_relu},
                       {},
                       [](const Shape& s) { return "cuDNN chose " + conv::cudnn_algorithm(s); },
                       // Its FFT and Winograd algorithms round as ours do, so they get their bounds:
                       // at 1x2x70x40 → 9 one seed's result missed the direct bound by 5 % on the H100.
                       [](const Shape& s) {
                         const std::string algorithm = conv::cudnn_algorithm(s);
                         if (algorithm.starts_with("FFT")) return ConvArithmetic::fft;
                         if (algorithm.starts_with("WINOGRAD")) return ConvArithmetic::winograd;
                         return ConvArithmetic::direct;
                       }};
}

// ---- the lesson

// Any shape; its place on the lesson's size axis is the n of the default family with the same work.
Problem problem_from(const Shape& s) {
  constexpr double family_macs_per_n2 = 8.0 * 16 * 16 * 9;  // problem_of(n): 8 × 16 × n × n → 16, 3 × 3
  const double n = std::sqrt(s.macs() / family_macs_per_n2);
  return {std::max<std::int64_t>(1, std::llround(n)),
          {{"N", s.n},
           {"C", s.c},
           {"H", s.h},
           {"W", s.w},
           {"K", s.k},
           {"R", s.r},
           {"S", s.s},
           {"pad", s.pad},
           {"stride", s.stride}}};
}

// The default family: a batch of 8 images of 16 channels, n × n, through 16 filters of 3 × 3.
Problem problem_of(std::int64_t n) {
  const int side = static_cast<int>(n);
  Problem p = problem_from(Shape{8, 16, side, side, 16, 3, 3, 1, 1});
  p.n = n;
  return p;
}

// "64x64x56x56:64:3x3[:pad[:stride]]"; the padding defaults to R / 2 ("same" for odd filters).
Problem parse_shape(const std::string& text) {
  static const std::regex form(R"((\d+)x(\d+)x(\d+)x(\d+):(\d+):(\d+)x(\d+)(?::(\d+))?(?::(\d+))?)");
  std::smatch m;
  if (!std::regex_match(text, m, form)) throw std::invalid_argument("not of the form NxCxHxW:K:RxS[:pad[:stride]]");
  auto number = [&](int i) {
    const std::string digits = m[i].str();
    if (digits.size() > 9) throw std::invalid_argument("a number is too large");
    return std::stoi(digits);
  };
  Shape s{number(1), number(2), number(3), number(4), number(5), number(6), number(7), 0, 1};
  s.pad = m[8].matched ? number(8) : s.r / 2;
  s.stride = m[9].matched ? number(9) : 1;
  conv::check_shape(s);
  return problem_from(s);
}

Counts counts_of(const Problem& p) {
  const Shape s = shape_of(p);
  const double in = static_cast<double>(s.input_size()), w = static_cast<double>(s.filter_size()),
               out = static_cast<double>(s.output_size());
  // The direct convolution's work, for every variant: Winograd and FFT do fewer operations, and
  // their GFLOP/s is "as fast as a direct convolution at this rate". The least traffic: read x
  // and w once, write y once.
  return {2 * s.macs(), 4 * (in + w + out), 4 * (in + w + static_cast<double>(s.k)), 4 * out};
}

Footprint footprint_of(const Problem& p) {
  const Shape s = shape_of(p);
  const double in = static_cast<double>(s.input_size()), w = static_cast<double>(s.filter_size()),
               out = static_cast<double>(s.output_size());
  // Host: x, w, their pinned copies, y's two copies; the reference (value and magnitude per
  // checked element). Device: x, w, y and the largest workspace (im2col's or Winograd's).
  const double checked = s.macs() <= kFullCheckMacs ? out : 2112.0 * s.q();
  const double workspace = static_cast<double>(
      std::max({conv::im2col_workspace(s), conv::winograd_workspace(s), conv::winograd_4x4_workspace(s)}));
  return {8 * (in + w) + 8 * out + 24 * checked, 4 * (in + w + out + workspace)};
}

std::unique_ptr<Instance> make_instance_of(const Problem& p, std::uint64_t seed) {
  auto in = std::make_unique<ConvInstance>();
  const Shape s = shape_of(p);
  conv::check_shape(s);
  in->topic = "conv";
  in->input_names = {"x", "w", "bias"};
  in->output_name = "y";
  in->conv_shape = s;
  in->shape = sizes_of(s);
  in->inputs = {std::vector<float>(s.input_size()), std::vector<float>(s.filter_size()),
                std::vector<float>(static_cast<std::size_t>(s.k))};
  for (std::size_t i = 0; i < 3; ++i) fill_uniform(in->inputs[i], seed, i, -1.0f, 1.0f);
  in->reference = conv_reference(in->inputs[0], in->inputs[1], in->inputs[2], s, seed);
  return in;
}

std::optional<std::string> winograd_applies(const Problem& p) {
  if (conv::winograd_applies(shape_of(p))) return std::nullopt;
  return "Winograd F(2×2, 3×3) and F(4×4, 3×3) are for 3 × 3 filters with stride 1";
}

std::optional<std::string> constant_memory_fits(const Problem& p) {
  const Shape s = shape_of(p);
  if (s.c * s.r * s.s <= conv::constant_filter_floats) return std::nullopt;
  return "one filter (C·R·S floats) does not fit in the 64 KB of constant memory";
}

std::optional<std::string> implicit_gemm_fits(const Problem& p) {
  const Shape s = shape_of(p);
  if (s.c * s.r * s.s <= conv::implicit_gemm_limit) return std::nullopt;
  return "implicit_gemm's offset table holds C·R·S <= " + std::to_string(conv::implicit_gemm_limit);
}

std::optional<std::string> im2col_fits(const Problem& p) {
  const Shape s = shape_of(p);
  if (static_cast<double>(s.c) * s.r * s.s * s.n * s.p() * s.q() < 2147483648.0) return std::nullopt;
  return "the im2col matrix would have 2^31 elements or more";
}

Variant variant(std::string name, std::string description, std::vector<std::pair<Backend, RunFactory>> backends,
                bool fixed_block = true, std::function<std::optional<std::string>(const Problem&)> applies = {}) {
  Variant v{std::move(name), std::move(description), std::move(backends)};
  v.fixed_block = fixed_block;
  if (applies) v.skips.push_back(unless_applies(std::move(applies)));
  return v;
}

Variant bug(std::string name, std::string description, conv::Bug which) {
  Variant v = variant(name, std::move(description), debug_backends(name, which));
  v.deliberately_wrong = which != conv::Bug::none;
  return v;
}

Problem shape(int n, int c, int h, int w, int k, int r, int s, int pad, int stride) {
  return problem_from(Shape{n, c, h, w, k, r, s, pad, stride});
}

Lesson make_lesson() {
  Lesson l;
  l.title = "Convolution";
  l.summary =
      "Direct, shared-memory tiles, im2col + GEMM, implicit GEMM, Winograd, FFT and a fused layer, "
      "against cuDNN";
  l.sources = {"kernels/conv/conv_direct.cu", "kernels/matmul/warp_tile.cuh"};
  l.size_help = "image side: a batch of 8 images of 16 channels, n × n, through 16 filters of 3 × 3";
  l.default_n = 56;
  l.max_n = 2048;
  l.sweep = {8, 16, 32, 64, 128, 256, 512};
  l.parse_shape = parse_shape;
  l.shape_help =
      "NxCxHxW:K:RxS[:pad[:stride]], e.g. 32x3x32x32:16:3x3 or 1x1x1024x1024:1:31x31:15 (padding "
      "R / 2 unless given, stride 1)";
  // The awkward cases: C = 1 and 3, 1 × 1 and even filters, stride 2, padding wider than the
  // filter's radius, images smaller than a tile, sizes that are no multiple of anything, empty.
  l.test_problems = {
      shape(1, 1, 1, 1, 1, 1, 1, 0, 1),     shape(2, 3, 17, 19, 5, 3, 3, 1, 1),    shape(1, 1, 37, 29, 2, 4, 4, 2, 1),
      shape(2, 4, 23, 21, 3, 5, 5, 2, 2),   shape(1, 2, 9, 7, 4, 3, 3, 4, 1),      shape(3, 8, 5, 6, 6, 1, 1, 0, 1),
      shape(2, 16, 33, 35, 24, 3, 3, 1, 1), shape(1, 3, 20, 18, 9, 3, 3, 0, 2),    shape(1, 2, 70, 40, 9, 3, 3, 1, 1),
      shape(1, 1, 67, 33, 3, 5, 5, 2, 1),   shape(1, 64, 18, 18, 3, 16, 16, 0, 1), shape(0, 3, 8, 8, 4, 3, 3, 1, 1),
      shape(1, 2, 5, 5, 0, 3, 3, 1, 1)};
  l.test_sizes = {};
  l.problem = problem_of;
  l.counts = counts_of;
  l.footprint = footprint_of;
  l.make_instance = make_instance_of;
  l.ladder_reference = "cudnn";

  namespace cv = conv;
  l.variants = {
      variant("cpu_direct", "The definition's loops, output rows over every core, vectorised along each row",
              {{Backend::cpu, cpu("cpu_direct", cv::cpu_direct)}}),
      variant("cpu_im2col", "im2col, then OpenBLAS sgemm per image",
              {{Backend::cpu, cpu("cpu_im2col", cv::cpu_im2col)}}),
      variant("direct", "One thread per output, the window read from global memory",
              device_backends("direct", direct_variant), false),
      variant("tiled", "Input tile + halo in shared memory, filters in constant memory, 8 filters per thread",
              device_backends("tiled", plain(conv::tiled, 256)), true, constant_memory_fits),
      variant("im2col_gemm", "im2col into a buffer, then lesson 05's warp-tiled GEMM",
              device_backends("im2col_gemm", im2col_variant(matmul::warp_tiled, 256)), true, im2col_fits),
      variant("im2col_cublas", "im2col into a buffer, then cuBLAS SGEMM (FP32)",
              device_backends("im2col_cublas", im2col_variant(matmul::cublas, 0)), true, im2col_fits),
      variant("implicit_gemm", "The GEMM with each tile of the patch matrix gathered from x: no im2col buffer",
              device_backends("implicit_gemm", plain(conv::implicit_gemm, 256)), true, implicit_gemm_fits),
      variant("winograd", "Winograd F(2×2, 3×3): transformed tiles, 16 GEMMs, 16 multiplies per 36",
              device_backends("winograd", winograd_variant), true, winograd_applies),
      variant("winograd_4x4", "Winograd F(4×4, 3×3): 6 × 6 tiles, 36 multiplies per 144, 36 GEMMs in one launch",
              device_backends("winograd_4x4", winograd_4x4_variant), true, winograd_applies),
      variant("fft", "cuFFT: pad, transform, multiply spectra, transform back (for large filters)",
              device_backends("fft", plain(conv::fft, 0, {ConvArithmetic::fft, false}))),
      variant("fused", "tiled + bias + ReLU in the same kernel: y = max(0, x ⋆ w + b), one pass",
              device_backends("fused", fused_variant), true, constant_memory_fits),
      variant("cudnn", "cuDNN forward convolution, FP32 (FMA math), the algorithm it measured fastest",
              device_backends("cudnn", cudnn_variant(false))),
      variant("cudnn_bias_relu", "cuDNN convolution, then a separate bias + ReLU pass: what fused replaces",
              device_backends("cudnn_bias_relu", cudnn_variant(true))),
      bug("debug_fixed", "The debugging lesson's shared-memory kernel, correct: one filter per block", conv::Bug::none),
      bug("bug_shared_index", "Deliberately wrong: reads shared memory with the output tile's row pitch",
          conv::Bug::shared_index),
      bug("bug_channels", "Deliberately wrong: loops over the channels but always reads channel 0",
          conv::Bug::channels),
      bug("bug_barrier", "Deliberately wrong: no barrier before the next channel overwrites the tile",
          conv::Bug::barrier),
  };
  l.variants.back().fixed_block = true;
  // The direct CPU loops take seconds per 10^9 multiply-adds on a laptop.
  l.variants.front().skips.push_back(slow_past(512));
  skip_in_every_variant(l, emulated_past(64));
  return l;
}

}  // namespace

// Lesson 06: 2-D convolution (NCHW, padding, stride) from one thread per output to shared-memory
// tiles, lowering to GEMM, Winograd, FFT and a fused conv + bias + ReLU; cuDNN as the library to beat.
const Lesson& conv_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
