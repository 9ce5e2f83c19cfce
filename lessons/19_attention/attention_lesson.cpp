// Lesson 19, attention's forward pass: the workload, its variants, what it counts and how it is
// checked. Q, K and V are stored in 16 bits; the reference is float64.
#include "common/lesson.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/array_runs.hpp"
#include "common/random.hpp"
#include "mixed/hopper_gpu.hpp"
#include "mixed/mixed.hpp"
#include "problems/attention/attention_reference.hpp"
#include "transformer/attention.hpp"
#include "transformer/attention_hopper.hpp"

namespace gpulab {

namespace {

namespace tf = transformer;
namespace mx = mixed;
using Bits = std::uint16_t;

// ---- the problem: batch × heads × seq × head_dim, causal or not; n (the sweeps' axis) is seq

Problem attention_problem(std::int64_t batch, std::int64_t heads, std::int64_t seq, std::int64_t head_dim,
                          bool causal) {
  return {seq, {{"batch", batch}, {"heads", heads}, {"seq", seq}, {"head_dim", head_dim}, {"causal", causal}}};
}

tf::AttentionShape shape_of(const Problem& p) {
  return {static_cast<std::size_t>(p.dim("batch", 1) * p.dim("heads", 8)), static_cast<std::size_t>(p.n),
          static_cast<std::size_t>(p.dim("head_dim", 64)), p.dim("causal", 0) != 0};
}

// --n: one sequence of n tokens, 8 heads of 64; --shape BxHxSxD[:causal] any other.
Problem problem_of(std::int64_t n) { return attention_problem(1, 8, n, 64, false); }

Problem parse_shape(const std::string& text) {
  const std::string help = "expected BATCHxHEADSxSEQxHEAD_DIM, optionally followed by :causal (4x16x4096x128:causal)";
  std::string dims = text;
  bool causal = false;
  if (const auto colon = text.find(':'); colon != std::string::npos) {
    if (text.substr(colon + 1) != "causal") throw std::invalid_argument(help);
    causal = true;
    dims = text.substr(0, colon);
  }
  std::int64_t v[4] = {};
  const char* at = dims.data();
  const char* end = dims.data() + dims.size();
  for (int i = 0; i < 4; ++i) {
    const auto [next, error] = std::from_chars(at, end, v[i]);
    if (error != std::errc() || v[i] < 0 || (i < 3 ? next == end || *next != 'x' : next != end)) {
      throw std::invalid_argument(help);
    }
    at = next + 1;
  }
  if (v[3] < 1 || v[3] > 256 || v[0] * v[1] > 65535 || v[2] > (std::int64_t{1} << 22) ||
      v[0] * v[1] * v[2] * v[3] > (std::int64_t{1} << 31)) {
    throw std::invalid_argument(
        "head_dim 1 to 256, batch x heads at most 65535, seq at most 2^22, at most 2^31 elements a tensor");
  }
  return attention_problem(v[0], v[1], v[2], v[3], causal);
}

// Query-key pairs a problem computes: seq² per head, or seq (seq + 1) / 2 with the causal mask.
double pairs_of(const tf::AttentionShape& s) {
  const double n = static_cast<double>(s.seq);
  return static_cast<double>(s.batch_heads) * (s.causal ? n * (n + 1) / 2 : n * n);
}

// Per pair: a d-long dot product for the score and d multiply-adds for the output (4d
// operations, as FlashAttention's papers count). The least traffic: Q, K, V read once (16 bits),
// O written once (FP32).
Counts counts_of(const Problem& p) {
  const tf::AttentionShape s = shape_of(p);
  const double elements = static_cast<double>(s.elements());
  return {4 * static_cast<double>(s.head_dim) * pairs_of(s), 6 * elements + 4 * elements, 6 * elements, 4 * elements};
}

// The naive rung also writes S, reads and writes it in the softmax, and reads it again: 16 bytes a
// score, seq² of them a head whatever the mask.
Counts naive_counts(const Problem& p) {
  Counts c = counts_of(p);
  const tf::AttentionShape s = shape_of(p);
  c.bytes += 16.0 * static_cast<double>(s.batch_heads) * static_cast<double>(s.seq) * static_cast<double>(s.seq);
  return c;
}

Footprint footprint_of(const Problem& p) {
  const tf::AttentionShape s = shape_of(p);
  const double elements = static_cast<double>(s.elements()), scores = static_cast<double>(s.rows() * s.seq);
  return {3 * 8 * elements + 8 * elements, 6 * elements + 4 * elements + 4 * scores};
}

// ---- the data and its check

// The inputs as values both FP16 and BF16 hold exactly (BF16's 8 bits of precision, within FP16's
// range), so every format multiplies the same numbers and the bound is about arithmetic alone.
// Q and K in [−2, 2] make scores of a spread of about 1.3 (d = 64 to 128): weights far from
// uniform, as a trained model's are; V in [−1, 1].
struct AttentionInstance : ArrayInstance {
  double q_max = 0, k_max = 0, v_max = 0;
};

// The problem's bound for 16-bit storage (problems/attention): `weight_roundoff` is what the
// tensor-core rungs' rounding of each weight to 16 bits adds (0 for the FP32 rungs).
Tolerance bound_of(const AttentionInstance& in, double weight_roundoff) {
  return attention_problem::sixteen_bit_tolerance(in.shape[2], in.shape[1], in.q_max, in.k_max, in.v_max,
                                                  weight_roundoff);
}

ArrayCheck check_of(double weight_roundoff) {
  return check_with<AttentionInstance>(
      [weight_roundoff](std::span<const float> o, const AttentionInstance& in, const std::string& what) {
        return compare(o, in.expected, bound_of(in, weight_roundoff), what);
      });
}

// The float64 attention of every query: the problem's reference (problems/attention, the
// grader's too), head by head.
void fill_attention(AttentionInstance& in, const tf::AttentionShape& s) {
  const std::size_t n = s.seq, d = s.head_dim;
  in.expected.assign(s.elements(), 0.0);
  const auto rows = static_cast<std::ptrdiff_t>(s.rows());
#pragma omp parallel for schedule(dynamic, 16)
  for (std::ptrdiff_t row = 0; row < rows; ++row) {
    const std::size_t h = static_cast<std::size_t>(row) / n, i = static_cast<std::size_t>(row) % n;
    const std::size_t head = h * n * d;
    attention_problem::attention_row<false>(in.inputs[0].data() + head, in.inputs[1].data() + head,
                                            in.inputs[2].data() + head, n, d, s.causal, i,
                                            in.expected.data() + head + i * d);
  }
}

std::unique_ptr<Instance> make_instance_of(const Problem& p, std::uint64_t seed) {
  const tf::AttentionShape s = shape_of(p);
  auto in = std::make_unique<AttentionInstance>();
  in->topic = "attention";
  in->input_names = {"q", "k", "v"};
  in->output_name = "o";
  in->shape = {s.batch_heads, s.seq, s.head_dim, s.causal ? 1u : 0u};
  in->inputs.assign(3, std::vector<float>(s.elements()));
  const float range[3] = {2.0f, 2.0f, 1.0f};
  for (std::size_t t = 0; t < 3; ++t) {
    fill_uniform(in->inputs[t], seed, t, -range[t], range[t]);
    for (float& x : in->inputs[t]) x = mx::round_to_bf16(x);
  }
  in->q_max = range[0], in->k_max = range[1], in->v_max = range[2];
  fill_attention(*in, s);
  return in;
}

// ---- the runs

// The instance's shape {batch · heads, seq, head_dim, causal}, as a launch and a hook see it.
tf::AttentionShape shape_of(const Shape& shape) { return {shape[0], shape[1], shape[2], shape[3] != 0}; }
tf::AttentionShape shape_of(const Launch& launch) { return shape_of(launch.shape); }

RunFactory cpu_rows() {
  return cpu_array_run("cpu_rows", check_of(0), [](const Inputs& in, std::span<float> o, const Launch& launch) {
    tf::attention_cpu_rows(in[0], in[1], in[2], o, shape_of(launch));
  });
}

using DeviceAttention = void (*)(const tf::AttentionInputs&, std::span<float>, const tf::AttentionShape&);

// The run of a kernel rung on the device backend chosen when it is made, Q, K and V stored in
// `storage`; `weights_rounded`: it rounds the weights to that format before P V (the
// tensor-core rungs); `threads`: its block.
RunFactory rung(const std::string& name, mx::Storage storage, DeviceAttention f, bool weights_rounded, int threads) {
  const ArrayCheck check = check_of(weights_rounded ? mx::unit_roundoff(storage) : 0);
  const ArrayFunctionOf<Bits> fn = [f, storage](const InputsOf<Bits>& in, std::span<float> o, const Launch& launch) {
    f({storage, in[0], in[1], in[2]}, o, shape_of(launch));
  };
  Bits (*store)(float) = storage == mx::Storage::fp16 ? mx::fp16_bits : mx::bf16_bits;
  const KernelHooks hooks{[threads](int) { return threads; }};
  return kernel_array_run<Bits>(name, check, fn, hooks, store);
}

// A kernel rung on every device backend.
std::vector<std::pair<Backend, RunFactory>> device(const std::string& name, mx::Storage storage, DeviceAttention f,
                                                   bool weights_rounded, int threads) {
  return on_devices(rung(name, storage, f, weights_rounded, threads));
}

// The Hopper rung: its run on a GPU that has what it needs (a Hopper GPU, a build with sm_90a
// code), skipped elsewhere with the reason.
std::vector<std::pair<Backend, RunFactory>> hopper(const std::string& name, mx::Storage storage) {
  const RunFactory run = rung(name, storage, tf::attention_wgmma, true, 384);
  return gpu_only(
      [run](const Instance& in, const RunOptions& options) {
        if (const std::string why = mx::hopper_missing(); !why.empty()) throw NotApplicable(why);
        return run(in, options);
      },
      "a Hopper GPU (TMA and wgmma)");
}

std::vector<std::pair<Backend, RunFactory>> naive() {
  KernelHooks hooks;
  hooks.threads = [](int) { return 256; };  // the scores' 16 × 16 blocks (and the softmax's)
  hooks.workspace = [](const ArrayInstance& in) { return tf::attention_naive_scores(shape_of(in.shape)); };
  const ArrayFunctionOf<Bits> fn = [](const InputsOf<Bits>& in, std::span<float> o, const Launch& launch) {
    tf::attention_naive({mx::Storage::fp16, in[0], in[1], in[2]}, o, shape_of(launch), launch.workspace);
  };
  return on_devices(kernel_array_run<Bits>("naive", check_of(0), fn, hooks, mx::fp16_bits));
}

// head_dim 64 or 128, for the rungs whose kernels fix it.
std::optional<std::string> dims_64_or_128(const Problem& p) {
  const std::int64_t d = p.dim("head_dim", 64);
  if (d == 64 || d == 128) return std::nullopt;
  return "its kernel is written for head_dim 64 or 128 (this problem's is " + std::to_string(d) + ")";
}

// Work past which a backend would take minutes: query-key pairs × head_dim.
SkipRule slower_than_minutes(Backend backend, double most) {
  return [backend, most](const Problem& p, Backend b) -> std::optional<std::string> {
    const tf::AttentionShape s = shape_of(p);
    if (b != backend || pairs_of(s) * static_cast<double>(s.head_dim) <= most) return std::nullopt;
    return std::string(backend == Backend::cpu ? "one CPU thread" : "the emulator (every GPU thread on the CPU)") +
           " would take minutes at this size: choose a smaller one" +
           (backend == Backend::emulated ? ", or run it on a GPU" : "");
  };
}

Lesson make_lesson() {
  Lesson l;
  l.title = "Attention";
  l.summary =
      "softmax(Q Kᵀ/√d) V: three kernels and seq² of memory → one kernel with the online softmax → the tensor "
      "cores, FlashAttention-2's way → Hopper's wgmma and TMA, FlashAttention-3's";
  l.sources = {"kernels/transformer/attention_mma.cu"};
  l.size_help = "seq, the tokens of one sequence, 8 heads of 64 (--shape BxHxSxD[:causal] for others)";
  l.default_n = 128;
  l.max_n = std::int64_t{1} << 16;
  l.sweep = {64, 128, 256, 512, 1024, 2048, 4096};
  l.problem = problem_of;
  l.parse_shape = parse_shape;
  l.shape_help = "BATCHxHEADSxSEQxHEAD_DIM[:causal], e.g. 4x16x4096x128:causal";
  // One token, under a warp, one past two tiles of 64, no multiple of anything; both head_dims,
  // one head and several, causal and not; none at all.
  l.test_problems = {attention_problem(1, 1, 0, 64, false),  attention_problem(1, 1, 1, 64, true),
                     attention_problem(1, 2, 17, 64, false), attention_problem(1, 1, 17, 128, true),
                     attention_problem(2, 1, 129, 64, true), attention_problem(1, 1, 129, 128, false),
                     attention_problem(1, 1, 200, 64, true)};
  l.counts = counts_of;
  l.footprint = footprint_of;
  l.make_instance = make_instance_of;
  // Visualize and --steps: the fused kernel's first block (queries 0 to 7 of the first head), its
  // online softmax tile by tile, read from the emulator's recording of it.
  l.steps = SharedMemorySteps{.variants = {"fused"},
                              .problem = "1x1x100x64",
                              .max_n = 1024,
                              .picture = SharedMemorySteps::Picture::online_softmax};
  const bool rounded = true;
  l.variants = {
      {"cpu_rows",
       "One CPU thread, a query at a time: scores, maximum, exponentials, weighted sum of V",
       {{Backend::cpu, cpu_rows()}}},
      {"naive", "Three kernels: S = Q Kᵀ/√d, softmax over S's rows (lesson 17), O = S V; S is seq² floats a head",
       naive(), naive_counts},
      {"fused", "One kernel on the CUDA cores: a warp a query, tiles of 32 keys in shared memory, the online softmax",
       device("fused", mx::Storage::fp16, tf::attention_fused, !rounded, 256)},
      {"mma_fp16",
       "FlashAttention-2's shape: 32 queries a warp, S and P V by mma.sync, the softmax in the accumulators",
       device("mma_fp16", mx::Storage::fp16, tf::attention_mma, rounded, 256)},
      {"mma_bf16", "mma_fp16 with BF16 inputs", device("mma_bf16", mx::Storage::bf16, tf::attention_mma, rounded, 256)},
      {"wgmma_fp16",
       "FlashAttention-3's shape on Hopper: a TMA producer warp group, two consumers of 64 queries, S and P V by wgmma",
       hopper("wgmma_fp16", mx::Storage::fp16)},
      {"wgmma_bf16", "wgmma_fp16 with BF16 inputs", hopper("wgmma_bf16", mx::Storage::bf16)},
  };
  for (Variant& v : l.variants) {
    v.tensor_cores = v.name.starts_with("mma") || v.name.starts_with("wgmma");
    // The fused and mma kernels fix their block and head_dim (64 or 128).
    v.fixed_block = v.name == "fused" || v.tensor_cores;
    if (v.fixed_block) v.skips.push_back(unless_applies(dims_64_or_128));
    v.skips.push_back(slower_than_minutes(Backend::cpu, 1e11));
    v.skips.push_back(slower_than_minutes(Backend::emulated, 4e9));
  }
  return l;
}

}  // namespace

// Lesson 19: attention's forward pass, from three kernels with seq² of memory to FlashAttention-2's
// single kernel on the tensor cores.
const Lesson& attention_lesson() {
  static const Lesson lesson = make_lesson();
  return lesson;
}

}  // namespace gpulab
