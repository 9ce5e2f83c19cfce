// Lesson 09, mixed precision: the workload, its variants and how each is checked. Square n × n
// products as in lesson 05, with the inputs stored in 16 bits; every result is checked against the
// float64 product of the FP32 inputs, with a bound that adds the rounding of the inputs to the
// rounding of the sum, and the error each format leaves is reported beside its speed.
#include "common/lesson.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>
#include "common/random.hpp"
#include "common/targets.hpp"
#include "matmul/matmul.hpp"
#include "matmul/matmul_cublas.hpp"
#include "mixed/hopper_gpu.hpp"
#include "mixed/mixed.hpp"
#include "mixed/mixed_gpu.hpp"
#include "mixed/mixed_training.hpp"
#include "mlp/mlp_data.hpp"
#include "mlp/mlp_train.hpp"
#include "problems/matmul/matmul_problem.hpp"

namespace gpulab {

namespace {

namespace mx = mixed;

// The relative rounding error of what a variant stores or multiplies: 0 for FP32.
enum class Format { fp32, tf32, fp16, bf16 };
double roundoff(Format f) {
  switch (f) {
    case Format::fp32:
      return 0;
    case Format::tf32:
      return std::ldexp(1.0, -11);
    case Format::fp16:
      return mx::unit_roundoff(mx::Storage::fp16);
    case Format::bf16:
      return mx::unit_roundoff(mx::Storage::bf16);
  }
  return 0;
}

// A and B's shape {m, n, k}, from a launch.
int dim(const Launch& launch, std::size_t i) { return static_cast<int>(launch.shape[i]); }

// ---- the CPU: OpenBLAS on the inputs as they are, or as a 16-bit format would store them
// (rounded once, outside every timer)

RunFactory cpu(const std::string& name, Format format) {
  float (*store)(float) = format == Format::fp16   ? mx::round_to_fp16
                          : format == Format::bf16 ? mx::round_to_bf16
                                                   : nullptr;
  return cpu_array_run(
      name, product_check(roundoff(format)),
      [](const Inputs& in, std::span<float> c, const Launch& l) {
        matmul::cpu_openblas(in[0], in[1], c, dim(l, 0), dim(l, 1), dim(l, 2));
      },
      store);
}

// ---- the GPU: A and B stored as `Element` (float, or the bit patterns of a 16-bit format),
// converted on the host once, outside every timer; so a 16-bit format also halves the upload.
template <typename Element>
using GemmOn = std::function<void(const Element* a, const Element* b, float* c, int m, int n, int k)>;

using Backends = std::vector<std::pair<Backend, RunFactory>>;

// Why a variant cannot run on this GPU (empty: it can).
using Missing = std::function<std::string()>;

// The run of a GPU variant, on the backend chosen when it is made (gpu_only makes it for the GPU
// alone): the array run with A and B stored as `Element`, checked with the bound of the format; a
// 16-bit format on tensor cores that do not take it, or a kernel this GPU lacks what for
// (`missing`), is skipped, saying so.
template <typename Element>
RunFactory gpu_run(const std::string& name, Format format, GemmOn<Element> gemm, Missing missing = {}) {
  const ArrayFunctionOf<Element> multiply = [gemm](const InputsOf<Element>& in, std::span<float> c, const Launch& l) {
    gemm(in[0].data(), in[1].data(), c.data(), dim(l, 0), dim(l, 1), dim(l, 2));
  };
  Element (*store)(float) = nullptr;
  if constexpr (!std::is_same_v<Element, float>) store = format == Format::fp16 ? mx::fp16_bits : mx::bf16_bits;
  const ArrayCheck check = product_check(roundoff(format));
  return factory<ArrayInstance>([=](const ArrayInstance& in, const RunOptions& options) -> std::unique_ptr<Run> {
    const auto s = format == Format::bf16 ? mx::Storage::bf16 : mx::Storage::fp16;
    if ((format == Format::fp16 || format == Format::bf16) && !mx::tensor_cores_take(s)) {
      throw NotApplicable(std::string("this GPU's tensor cores do not take ") + mx::to_string(s) +
                          " (compute capability 8.0 or newer does)");
    }
    if (missing) {
      if (const std::string why = missing(); !why.empty()) throw NotApplicable(why);
    }
    return std::make_unique<KernelArrayRun<Element>>(in, name, check, options.block, multiply,
                                                     KernelHooks{[](int) { return 0; }}, store);
  });
}

using Bits = std::uint16_t;
GemmOn<Bits> ours(void (*gemm)(mx::Storage, const Bits*, const Bits*, float*, int, int, int), mx::Storage s) {
  return [gemm, s](const Bits* a, const Bits* b, float* c, int m, int n, int k) { gemm(s, a, b, c, m, n, k); };
}
template <typename Element>
GemmOn<Element> library(matmul::TensorInputs inputs) {
  return [inputs](const Element* a, const Element* b, float* c, int m, int n, int k) {
    matmul::cublas_tensor(inputs, a, b, c, m, n, k);
  };
}
GemmOn<float> fp32(void (*gemm)(std::span<const float>, std::span<const float>, std::span<float>, int, int, int)) {
  return [gemm](const float* a, const float* b, float* c, int m, int n, int k) {
    const auto size = [](int rows, int cols) {
      return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
    };
    gemm({a, size(m, k)}, {b, size(k, n)}, {c, size(m, n)}, m, n, k);
  };
}

// A 16-bit variant moves half of A's and B's bytes.
Counts half_counts(const Problem& p) {
  const double m = product_dim(p, "m"), n = product_dim(p, "n"), k = product_dim(p, "k");
  return {2 * m * n * k, 2 * (m * k + k * n) + 4 * m * n, 2 * (m * k + k * n), 4 * m * n};
}

std::optional<std::string> multiples_of_16(const Problem& p) {
  if (product_dim(p, "m") % 16 == 0 && product_dim(p, "n") % 16 == 0 && product_dim(p, "k") % 16 == 0)
    return std::nullopt;
  return "wmma_simple loads whole 16 × 16 fragments: m, n and k must be multiples of 16 (wmma_tiled takes any)";
}

// The Hopper rungs' TMA loads read rows that start on 16-byte boundaries.
std::optional<std::string> rows_of_16_bytes(const Problem& p) {
  if (product_dim(p, "n") % 8 == 0 && product_dim(p, "k") % 8 == 0) return std::nullopt;
  return "the TMA unit reads rows that start on 16-byte boundaries: n and k must be multiples of 8 (mma_ldmatrix "
         "takes any size)";
}

// A Hopper rung: its run on a GPU that has what it needs, skipped elsewhere with the reason.
Backends hopper(const std::string& name, mx::Storage s,
                void (*gemm)(mx::Storage, const Bits*, const Bits*, float*, int, int, int)) {
  const Format format = s == mx::Storage::fp16 ? Format::fp16 : Format::bf16;
  return gpu_only(gpu_run<Bits>(name, format, ours(gemm, s), mx::hopper_missing), "a Hopper GPU (TMA, wgmma)");
}

Variant variant(std::string name, std::string description, Backends backends, bool half = false) {
  Variant v{std::move(name), std::move(description), std::move(backends)};
  if (half) v.counts = half_counts;
  return v;
}

// ---- training in mixed precision (on the CPU, FP16 storage emulated by rounding)

std::string train_report(const std::string& dataset_name, const std::string& variant, Backend backend, int epochs) {
  const auto dataset = mlp::parse_dataset(dataset_name);
  if (!dataset) throw std::invalid_argument("unknown dataset '" + dataset_name + "' (xor, moons, circles, spirals)");
  if (!variant.empty()) throw std::invalid_argument("lesson 09 trains all three ways at once: no --variant");
  if (backend != Backend::cpu) {
    throw std::invalid_argument("lesson 09's training emulates FP16 storage on the CPU: --backend cpu");
  }
  // A large full batch: the mean over 16384 examples makes each example's delta tiny, which is
  // where FP16's range runs out.
  constexpr int kPoints = 16384;
  constexpr float kRate = 8.0f;
  const int steps = epochs > 0 ? epochs : 400;
  const mlp::Layout net{{2, 16, 16, 1}};  // three layers: deltas shrink on the way back
  const mlp::Data data = mlp::make_dataset(*dataset, kPoints, 11);
  const mx::Precision ways[3] = {mx::Precision::fp32, mx::Precision::fp16, mx::Precision::fp16_scaled};
  std::vector<std::vector<float>> params(3, mlp::initial_parameters(net, 11));
  mx::LossScale scales[3];
  double underflow[3] = {0, 0, 0};
  int skipped = 0;
  std::string out = fmt::format(
      "Lesson 09: {} ({} points, one full batch per step) on {}, MSE, lr {}; FP16 storage emulated on the CPU "
      "(every activation, delta, weight copy and gradient rounded to FP16; sums and master weights in FP32)\n\n"
      "{:>6} {:>12} {:>12} {:>12} {:>10} {:>18}\n",
      dataset_name, kPoints, mlp::to_string(net), kRate, "step", "FP32", "FP16", "FP16 scaled", "scale",
      "deltas lost (FP16)");
  for (int step = 1; step <= steps; ++step) {
    mx::MixedStep r[3];
    for (int w = 0; w < 3; ++w) {
      r[w] =
          mx::mixed_step(net, params[static_cast<std::size_t>(w)], data.x, data.y, kPoints, kRate, ways[w], scales[w]);
      underflow[w] = std::max(underflow[w], r[w].underflow);
    }
    skipped += r[2].skipped ? 1 : 0;
    if (step == 1 || step % std::max(1, steps / 10) == 0) {
      out += fmt::format("{:>6} {:>12.6f} {:>12.6f} {:>12.6f} {:>10g} {:>17.1f}%\n", step, r[0].loss, r[1].loss,
                         r[2].loss, r[2].scale, 100 * r[1].underflow);
    }
  }
  auto accuracy = [&](const std::vector<float>& p) { return 100.0 * mlp::accuracy(net, p, data); };
  out += fmt::format(
      "\naccuracy: FP32 {:.1f} %, FP16 {:.1f} %, FP16 with loss scaling {:.1f} %\n"
      "Without scaling, up to {:.0f} % of the non-zero deltas of a step rounded to 0 in FP16 (below 2^-24 ≈ 6e-8) "
      "and more lost most of their digits (subnormals): those examples stop teaching the network. Scaling the loss "
      "by {:g} moves the deltas into FP16's range (at most {:.1f} % lost); the gradients are divided by the scale "
      "again in FP32 before the update. {} step(s) overflowed and were skipped while the scale adapted.\n",
      accuracy(params[0]), accuracy(params[1]), accuracy(params[2]), 100 * underflow[1], scales[2].scale,
      100 * underflow[2], skipped);
  return out;
}

Lesson make_lesson() {
  Lesson l;
  l.title = "Mixed precision and tensor cores";
  l.summary = "FP16 and BF16 storage with FP32 sums: WMMA tensor-core kernels, cuBLAS FP16/BF16/TF32, and their error";
  l.sources = {"kernels/mixed/wmma_gemm.cu"};
  l.default_n = 2048;
  l.sweep = {128, 256, 512, 1024, 2048, 4096, 8192};
  use_product_sizes(l, "mixed precision");
  l.test_problems.push_back(product_shape(128, 256, 64));  // whole fragments, for wmma_simple
  l.test_sizes = {1, 17, 128, 1000};
  l.ladder_reference = "cublas_fp16";
  l.training = Training{.report = train_report};
  const bool half = true;
  l.variants = {
      variant("openblas", "OpenBLAS sgemm in FP32: the CPU library", {{Backend::cpu, cpu("openblas", Format::fp32)}}),
      variant("openblas_fp16_inputs", "OpenBLAS on the inputs rounded to FP16: the error FP16 storage costs, on a CPU",
              {{Backend::cpu, cpu("openblas_fp16_inputs", Format::fp16)}}),
      variant("openblas_bf16_inputs", "OpenBLAS on the inputs rounded to BF16: 3 bits less than FP16, float's range",
              {{Backend::cpu, cpu("openblas_bf16_inputs", Format::bf16)}}),
      variant("warp_tiled_fp32", "Lesson 05's fastest FP32 kernel (warp tiles), on the CUDA cores",
              gpu_only(gpu_run<float>("warp_tiled_fp32", Format::fp32, fp32(matmul::warp_tiled)),
                       "lesson 05 (run it there emulated)")),
      variant("cublas_fp32", "cuBLAS in FP32 on the CUDA cores (no tensor cores)",
              gpu_only(gpu_run<float>("cublas_fp32", Format::fp32, fp32(matmul::cublas)), "cuBLAS")),
      variant("cublas_tf32", "cuBLAS, FP32 inputs read as TF32 (10-bit fraction) by the tensor cores",
              gpu_only(gpu_run<float>("cublas_tf32", Format::tf32, library<float>(matmul::TensorInputs::tf32)),
                       "cuBLAS and tensor cores")),
      variant("wmma_simple", "FP16 in, FP32 sums: one warp per 16 × 16 tile of C, fragments from global memory",
              on_devices(gpu_run<Bits>("wmma_simple", Format::fp16, ours(mx::wmma_simple, mx::Storage::fp16))), half),
      variant("wmma_fp16", "FP16 in, FP32 sums: 128 × 128 block tiles through shared memory, async copies ahead",
              on_devices(gpu_run<Bits>("wmma_fp16", Format::fp16, ours(mx::wmma_tiled, mx::Storage::fp16))), half),
      variant("wmma_bf16", "The same kernel with BF16 inputs",
              on_devices(gpu_run<Bits>("wmma_bf16", Format::bf16, ours(mx::wmma_tiled, mx::Storage::bf16))), half),
      variant("mma_ldmatrix",
              "FP16 in, FP32 sums: the PTX under WMMA — ldmatrix from swizzled shared memory, mma.sync m16n8k16",
              on_devices(gpu_run<Bits>("mma_ldmatrix", Format::fp16, ours(mx::mma_ldmatrix, mx::Storage::fp16))), half),
      variant("tma_mma", "mma_ldmatrix with its k-steps loaded by Hopper's TMA unit into an mbarrier pipeline",
              hopper("tma_mma", mx::Storage::fp16, mx::tma_mma), half),
      variant("wgmma_fp16",
              "Hopper's wgmma from shared memory, 128 × 256 tiles: a TMA producer warp group, two consumer groups",
              hopper("wgmma_fp16", mx::Storage::fp16, mx::wgmma), half),
      variant("wgmma_bf16", "wgmma_fp16 with BF16 inputs", hopper("wgmma_bf16", mx::Storage::bf16, mx::wgmma), half),
      variant("wgmma_cluster_fp16",
              "wgmma_fp16's blocks in pairs sharing B's loads (TMA multicast), persistent, k-steps overlapped",
              hopper("wgmma_cluster_fp16", mx::Storage::fp16, mx::wgmma_cluster), half),
      variant("wgmma_cluster_bf16", "wgmma_cluster_fp16 with BF16 inputs",
              hopper("wgmma_cluster_bf16", mx::Storage::bf16, mx::wgmma_cluster), half),
      variant("cublas_fp16", "cuBLAS with FP16 inputs and FP32 sums: the tensor cores' library speed",
              gpu_only(gpu_run<Bits>("cublas_fp16", Format::fp16, library<Bits>(matmul::TensorInputs::fp16)),
                       "cuBLAS and tensor cores"),
              half),
      variant("cublas_bf16", "cuBLAS with BF16 inputs and FP32 sums",
              gpu_only(gpu_run<Bits>("cublas_bf16", Format::bf16, library<Bits>(matmul::TensorInputs::bf16)),
                       "cuBLAS and tensor cores"),
              half),
  };
  for (Variant& v : l.variants) {
    v.tensor_cores = v.name.starts_with("wmma") || v.name.starts_with("mma") || v.name.starts_with("tma") ||
                     v.name.starts_with("wgmma") || (v.name.starts_with("cublas_") && v.name != "cublas_fp32");
    if (v.name == "wmma_simple") v.skips.push_back(unless_applies(multiples_of_16));
    if (v.name == "tma_mma" || v.name.starts_with("wgmma")) v.skips.push_back(unless_applies(rows_of_16_bytes));
    if (v.name.starts_with("openblas")) v.skips.push_back(slow_past(8192));
    v.skips.push_back(emulated_past(512));
  }
  return l;
}

}  // namespace

// Lesson 09: matrix multiply with A and B stored in FP16 or BF16 and summed in FP32, on the tensor
// cores (WMMA kernels of our own, cuBLAS with FP16, BF16 and TF32), each beside its error.
const Lesson& mixed_precision_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
