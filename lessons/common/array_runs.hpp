#pragma once
// Runs for lessons whose inputs are float arrays and whose output is one float array, checked
// against a float64 reference: vector add, matrix add, sigmoid, reduction, transpose element by
// element; matrix products and convolutions with their own bounds (ArrayCheck). A lesson supplies
// the data (ArrayInstance) and, per variant, a function from input spans to the output, with what
// its kernel says of its launch (KernelHooks).
#include <algorithm>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/cuda_error.hpp"
#include "common/lesson.hpp"
#include "common/targets.hpp"

namespace gpulab {

// A lesson's data as float arrays: its inputs, and the float64 reference the default check
// compares with. A lesson whose reference is no element-by-element array (a product's sampled
// check, a convolution's bounds) derives from it, keeps its own reference and says its output's
// size.
struct ArrayInstance : Instance {
  std::string topic;                     // "vector_add", for messages
  std::vector<std::string> input_names;  // "a", "b": names the emulator's checked mode reports
  std::string output_name = "out";
  std::vector<std::vector<float>> inputs;
  std::vector<double> expected;
  std::vector<std::size_t> shape;  // e.g. {rows, cols}; {m, n, k}; empty for a plain array
  virtual std::size_t output_size() const { return expected.size(); }
};

using Shape = std::vector<std::size_t>;  // an ArrayInstance's shape
// What a variant's function is given besides its arrays: the instance's shape, the threads per
// block asked for, and the device scratch its hooks asked for (im2col's matrix).
struct Launch {
  Shape shape;
  int block = 0;
  std::span<float> workspace = {};
};

// One variant's work: on the CPU with host spans, on a device target with device spans. Inputs
// may be stored in another type on the device (a 16-bit format: see KernelArrayRun).
template <typename Stored>
using InputsOf = std::vector<std::span<const Stored>>;
template <typename Stored>
using ArrayFunctionOf = std::function<void(const InputsOf<Stored>& in, std::span<float> out, const Launch& launch)>;
using Inputs = InputsOf<float>;
using ArrayFunction = ArrayFunctionOf<float>;

// Adapters from a launcher's own signature.
using UnaryLauncher = void (*)(std::span<const float> x, std::span<float> y, int block);
using BinaryLauncher = void (*)(std::span<const float> a, std::span<const float> b, std::span<float> c, int block);
inline ArrayFunction unary(UnaryLauncher f) {
  return [f](const Inputs& in, std::span<float> out, const Launch& launch) { f(in[0], out, launch.block); };
}
inline ArrayFunction binary(BinaryLauncher f) {
  return [f](const Inputs& in, std::span<float> out, const Launch& launch) { f(in[0], in[1], out, launch.block); };
}

// How a variant's output is checked: element by element against the instance's `expected` within
// a Tolerance (which converts), or a tolerance that depends on the data and the launch (a sum's
// rounding grows with the additions in a row, which n and the block size set: lesson 13), or a
// lesson's own check (check_with: a product's bound grows with k). `what` names the run.
class ArrayCheck {
 public:
  using Function = std::function<CheckResult(std::span<const float> out, const ArrayInstance& in, int block,
                                             const std::string& what)>;
  ArrayCheck(Tolerance tolerance) : ArrayCheck([tolerance](const ArrayInstance&, int) { return tolerance; }) {}
  template <typename F>
  requires std::is_invocable_r_v<Tolerance, F, const ArrayInstance&, int> ArrayCheck(F tolerance_of)
      : check_([tolerance_of](std::span<const float> out, const ArrayInstance& in, int block, const std::string& what) {
          return compare(out, in.expected, tolerance_of(in, block), what);
        }) {}
  static ArrayCheck with(Function check) {
    ArrayCheck c(Tolerance{});
    c.check_ = std::move(check);
    return c;
  }
  CheckResult operator()(std::span<const float> out, const ArrayInstance& in, int block,
                         const std::string& what) const {
    return check_(out, in, block, what);
  }

 private:
  Function check_;
};

// A lesson's own check, written against its own instance type.
template <typename LessonInstance, typename F>
ArrayCheck check_with(F check) {
  return ArrayCheck::with([check](std::span<const float> out, const ArrayInstance& in, int, const std::string& what) {
    return check(out, static_cast<const LessonInstance&>(in), what);
  });
}

// "vector_add naive (gpu)": how messages name a run.
inline std::string run_name(const ArrayInstance& in, const std::string& variant, Backend backend) {
  return in.topic + " " + variant + " (" + std::string(to_string(backend)) + ")";
}

// On the CPU: the function on the instance's inputs. `store`, where given, is how a variant holds
// its inputs (a 16-bit format's rounding), applied once, outside every timer.
class CpuArrayRun : public Run {
 public:
  CpuArrayRun(const ArrayInstance& in, std::string name, ArrayCheck check, ArrayFunction fn,
              float (*store)(float) = nullptr);
  void poison() override;
  void compute() override;
  CheckResult check() const override;

 private:
  const ArrayInstance& in_;
  std::string name_;
  ArrayCheck check_;
  ArrayFunction fn_;
  std::vector<std::vector<float>> stored_;  // the inputs as `store` rounds them (none without one)
  Inputs inputs_;
  Launch launch_;
  std::vector<float> out_;
};

using OccupancyFunction = std::function<double(int block)>;

// What a kernel variant may say about its launch besides its function, each optional.
struct KernelHooks {
  // The threads per block it launches, from the block size asked for (unset: that size; 0: a
  // library's call, not one launch of ours).
  std::function<int(int block)> threads = {};
  // Its theoretical occupancy there (warp_tiled picks its tiles from the shape).
  std::function<double(int block, const ArrayInstance&)> occupancy = {};
  // Floats of device scratch it needs (im2col's matrix), allocated with the run, outside the timers.
  std::function<std::size_t(const ArrayInstance&)> workspace = {};
  // A line the results carry when it passed (the algorithm a library chose).
  std::function<std::string(const ArrayInstance&)> note = {};
};

inline KernelHooks with_occupancy(OccupancyFunction occupancy) {
  KernelHooks hooks;
  if (occupancy) hooks.occupancy = [occupancy](int block, const ArrayInstance&) { return occupancy(block); };
  return hooks;
}

// A kernel on the device backend chosen while it is made (the GPU or the emulator): host copies of
// the inputs, filled once outside any timer (as `Stored`: float, or a 16-bit format's bits through
// `store`); device buffers; the function under test.
template <typename Stored = float>
class KernelArrayRun : public Run {
 public:
  KernelArrayRun(const ArrayInstance& in, std::string name, ArrayCheck check, int block, ArrayFunctionOf<Stored> fn,
                 KernelHooks hooks = {}, Stored (*store)(float) = nullptr)
      : in_(in),
        backend_(active_device()),
        name_(std::move(name)),
        check_(std::move(check)),
        fn_(std::move(fn)),
        hooks_(std::move(hooks)),
        host_out_(in.output_size(), "output (host)"),
        out_(in.output_size(), in.output_name.c_str()),
        workspace_(hooks_.workspace ? hooks_.workspace(in) : 0, "workspace") {
    for (std::size_t i = 0; i < in.inputs.size(); ++i) {
      const char* label = i < in.input_names.size() ? in.input_names[i].c_str() : "input";
      host_in_.emplace_back(in.inputs[i].size(), label);
      if constexpr (std::is_same_v<Stored, float>) {
        std::copy(in.inputs[i].begin(), in.inputs[i].end(), host_in_.back().data());
      } else {
        std::transform(in.inputs[i].begin(), in.inputs[i].end(), host_in_.back().data(), store);
      }
      device_in_.emplace_back(in.inputs[i].size(), label);
    }
    // Built once: compute() is timed, and the launch should follow the event at once.
    for (const auto& buffer : device_in_) device_spans_.push_back(buffer.span());
    launch_ = {in.shape, block, workspace_.span()};
  }
  // [snippet:gpu_run_phases]
  void poison() override {
    out_.fill_bytes(kPoisonByte);
    gpulab::poison(host_out_.span());  // so a failed download cannot pass for a result either
  }
  void upload() override {
    for (std::size_t i = 0; i < device_in_.size(); ++i) device_in_[i].copy_from(host_in_[i].span());
  }
  void compute() override { fn_(device_spans_, out_.span(), launch_); }
  void download() override { out_.copy_to(host_out_.span()); }
  // [/snippet]
  CheckResult check() const override {
    return check_(host_out_.span(), in_, launch_.block, run_name(in_, name_, backend_));
  }
  int block() const override { return hooks_.threads ? hooks_.threads(launch_.block) : launch_.block; }
  std::optional<double> occupancy() const override {
    return hooks_.occupancy ? std::optional<double>(hooks_.occupancy(launch_.block, in_)) : std::nullopt;
  }
  std::string note() const override { return hooks_.note ? hooks_.note(in_) : std::string(); }

 private:
  const ArrayInstance& in_;
  Backend backend_;
  std::string name_;
  ArrayCheck check_;
  ArrayFunctionOf<Stored> fn_;
  KernelHooks hooks_;
  std::vector<HostBuffer<Stored>> host_in_;
  std::vector<DeviceBuffer<Stored>> device_in_;
  InputsOf<Stored> device_spans_;
  HostBuffer<float> host_out_;
  DeviceBuffer<float> out_;
  DeviceBuffer<float> workspace_;
  Launch launch_;
};

RunFactory cpu_array_run(const std::string& name, const ArrayCheck& check, ArrayFunction fn,
                         float (*store)(float) = nullptr);

template <typename Stored = float>
RunFactory kernel_array_run(const std::string& name, ArrayCheck check, ArrayFunctionOf<Stored> fn,
                            KernelHooks hooks = {}, Stored (*store)(float) = nullptr) {
  return factory<ArrayInstance>([=](const ArrayInstance& in, const RunOptions& options) -> std::unique_ptr<Run> {
    return std::make_unique<KernelArrayRun<Stored>>(in, name, check, options.block, fn, hooks, store);
  });
}

// One block of n threads (<<<1, n>>>). Past the device's limit the launch is tried anyway, so the
// learner sees CUDA's own answer (the emulator gives the same), and the run is skipped with the
// explanation and the variant that does it right.
inline RunFactory one_block_run(const std::string& name, ArrayCheck check, ArrayFunction fn,
                                const std::string& instead) {
  return factory<ArrayInstance>([=](const ArrayInstance& in, const RunOptions&) -> std::unique_ptr<Run> {
    const std::size_t n = in.output_size();
    auto run =
        std::make_unique<KernelArrayRun<>>(in, name, check, static_cast<int>(std::min<std::size_t>(n, 1u << 30)), fn);
    const int limit = active_device_info().max_threads_per_block;
    if (n > static_cast<std::size_t>(limit)) {
      try {
        run->upload();
        run->compute();
      } catch (const CudaError& e) {
        throw NotApplicable("a block holds at most " + std::to_string(limit) + " threads on this GPU, so <<<1, " +
                            std::to_string(n) + ">>> cannot launch. CUDA said: " + e.cuda_message() + ". Variant '" +
                            instead + "' spreads the elements over many blocks.");
      }
    }
    return run;
  });
}

// A kernel variant on every device backend this build has, from one kernel source.
std::vector<std::pair<Backend, RunFactory>> kernel_backends(const std::string& name, const ArrayCheck& check,
                                                            const ArrayFunction& fn,
                                                            const OccupancyFunction& occupancy = {});
// The same with the hooks of a kernel that says more of its launch.
std::vector<std::pair<Backend, RunFactory>> kernel_backends(const std::string& name, const ArrayCheck& check,
                                                            const ArrayFunction& fn, const KernelHooks& hooks);
// The same for a one-block variant (see one_block_run).
std::vector<std::pair<Backend, RunFactory>> one_block_backends(const std::string& name, const ArrayCheck& check,
                                                               const ArrayFunction& fn, const std::string& instead);

// An instance with one input array per name, `count` elements each, uniform in [lo, hi] from the
// seed (input k from stream k), and room for the reference.
std::unique_ptr<ArrayInstance> random_inputs(const std::string& topic, const std::vector<std::string>& names,
                                             std::size_t count, std::uint64_t seed, float lo, float hi);

// The sizes of a lesson over 1-D arrays of n elements: default 2^20, sweep 2^10 ... 2^28, tests at
// 1, 31, 32, 1000, 1023, 1025 and 2^20 + 3 (one element, under and over a warp, around a block of
// 1024, and a large odd size).
void use_array_sizes(Lesson& lesson);

// Fills `expected` from the inputs in parallel: expected[i] = f(i).
void fill_expected(ArrayInstance& in, const std::function<double(std::size_t)>& f);

}  // namespace gpulab
