#pragma once
// Runs for lessons whose inputs are float arrays and whose output is one float array, checked
// element by element against a float64 reference: vector add, matrix add, sigmoid. A lesson
// supplies the data (ArrayInstance) and, per variant, a function from input spans to the output.
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

struct ArrayInstance : Instance {
  std::string topic;                     // "vector_add", for messages
  std::vector<std::string> input_names;  // "a", "b": names the emulator's checked mode reports
  std::vector<std::vector<float>> inputs;
  std::vector<double> expected;
  std::vector<std::size_t> shape;  // e.g. {rows, cols}; empty for a plain array
  std::size_t output_size() const { return expected.size(); }
};

using Inputs = std::vector<std::span<const float>>;
// One variant's work: on the CPU with host spans, on a device target with device spans.
using Shape = std::vector<std::size_t>;
using ArrayFunction = std::function<void(const Inputs& in, std::span<float> out, const Shape& shape, int block)>;

// Adapters from a launcher's own signature.
using UnaryLauncher = void (*)(std::span<const float> x, std::span<float> y, int block);
using BinaryLauncher = void (*)(std::span<const float> a, std::span<const float> b, std::span<float> c, int block);
inline ArrayFunction unary(UnaryLauncher f) {
  return [f](const Inputs& in, std::span<float> out, const Shape&, int block) { f(in[0], out, block); };
}
inline ArrayFunction binary(BinaryLauncher f) {
  return [f](const Inputs& in, std::span<float> out, const Shape&, int block) { f(in[0], in[1], out, block); };
}

class CpuArrayRun : public Run {
 public:
  CpuArrayRun(const ArrayInstance& in, std::string name, Tolerance tolerance, ArrayFunction fn);
  void poison() override;
  void compute() override;
  CheckResult check() const override;

 private:
  const ArrayInstance& in_;
  std::string name_;
  Tolerance tolerance_;
  ArrayFunction fn_;
  Inputs inputs_;
  std::vector<float> out_;
};

using OccupancyFunction = std::function<double(int block)>;

// A kernel on the GPU or emulated (Target): host copies of the inputs, filled once outside any
// timer; device buffers; the function under test.
template <typename Target>
class KernelArrayRun : public Run {
 public:
  KernelArrayRun(const ArrayInstance& in, std::string name, Tolerance tolerance, int block, ArrayFunction fn,
                 OccupancyFunction occupancy = {})
      : in_(in),
        name_(std::move(name)),
        tolerance_(tolerance),
        block_(block),
        fn_(std::move(fn)),
        occupancy_(std::move(occupancy)),
        host_out_(in.output_size(), "output (host)"),
        out_(in.output_size(), "out") {
    for (std::size_t i = 0; i < in.inputs.size(); ++i) {
      const char* label = i < in.input_names.size() ? in.input_names[i].c_str() : "input";
      host_in_.emplace_back(in.inputs[i].size(), label);
      std::copy(in.inputs[i].begin(), in.inputs[i].end(), host_in_.back().data());
      device_in_.emplace_back(in.inputs[i].size(), label);
    }
    // Built once: compute() is timed, and the launch should follow the event at once.
    for (const auto& buffer : device_in_) device_spans_.push_back(buffer.span());
  }
  // [snippet:gpu_run_phases]
  void poison() override {
    out_.fill_bytes(kPoisonByte);
    gpulab::poison(host_out_.span());  // so a failed download cannot pass for a result either
  }
  void upload() override {
    for (std::size_t i = 0; i < device_in_.size(); ++i) device_in_[i].copy_from(host_in_[i].span());
  }
  void compute() override { fn_(device_spans_, out_.span(), in_.shape, block_); }
  void download() override { out_.copy_to(host_out_.span()); }
  // [/snippet]
  CheckResult check() const override {
    return compare(host_out_.span(), in_.expected, tolerance_,
                   in_.topic + " " + name_ + " (" + std::string(to_string(Target::backend)) + ")");
  }
  int block() const override { return block_; }
  std::optional<double> occupancy() const override {
    return occupancy_ ? std::optional<double>(occupancy_(block_)) : std::nullopt;
  }

 private:
  const ArrayInstance& in_;
  std::string name_;
  Tolerance tolerance_;
  int block_;
  ArrayFunction fn_;
  OccupancyFunction occupancy_;
  std::vector<typename Target::template HostBuffer<float>> host_in_;
  std::vector<typename Target::template DeviceBuffer<float>> device_in_;
  Inputs device_spans_;
  typename Target::template HostBuffer<float> host_out_;
  typename Target::template DeviceBuffer<float> out_;
};

// A tolerance that depends on the data and the launch: a sum's rounding error grows with the
// number of additions in a row, which n and the block size set (lesson 13).
// Most lessons give one Tolerance, which converts.
class ToleranceOf {
 public:
  ToleranceOf(Tolerance tolerance) : of_([tolerance](const ArrayInstance&, int) { return tolerance; }) {}
  template <typename F>
  requires std::is_invocable_r_v<Tolerance, F, const ArrayInstance&, int> ToleranceOf(F of) : of_(std::move(of)) {}
  Tolerance operator()(const ArrayInstance& in, int block) const { return of_(in, block); }

 private:
  std::function<Tolerance(const ArrayInstance&, int)> of_;
};

RunFactory cpu_array_run(const std::string& name, const ToleranceOf& tolerance, ArrayFunction fn);

template <typename Target>
RunFactory kernel_array_run(const std::string& name, ToleranceOf tolerance, ArrayFunction fn,
                            OccupancyFunction occupancy = {}) {
  return factory<ArrayInstance>([=](const ArrayInstance& in, const RunOptions& options) -> std::unique_ptr<Run> {
    return std::make_unique<KernelArrayRun<Target>>(in, name, tolerance(in, options.block), options.block, fn,
                                                    occupancy);
  });
}

// One block of n threads (<<<1, n>>>). Past the device's limit the launch is tried anyway, so the
// learner sees CUDA's own answer (the emulator gives the same), and the run is skipped with the
// explanation and the variant that does it right.
template <typename Target>
RunFactory one_block_run(const std::string& name, Tolerance tolerance, ArrayFunction fn, const std::string& instead) {
  return factory<ArrayInstance>([=](const ArrayInstance& in, const RunOptions&) -> std::unique_ptr<Run> {
    const std::size_t n = in.output_size();
    auto run = std::make_unique<KernelArrayRun<Target>>(in, name, tolerance,
                                                        static_cast<int>(std::min<std::size_t>(n, 1u << 30)), fn);
    const int limit = Target::device().max_threads_per_block;
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
std::vector<std::pair<Backend, RunFactory>> kernel_backends(const std::string& name, const ToleranceOf& tolerance,
                                                            const ArrayFunction& fn,
                                                            const OccupancyFunction& occupancy = {});
// The same for a one-block variant (see one_block_run).
std::vector<std::pair<Backend, RunFactory>> one_block_backends(const std::string& name, Tolerance tolerance,
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
