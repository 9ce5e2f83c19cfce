#pragma once
// Where a GPU variant runs: on the GPU (built with the CUDA toolkit) or on the emulator. A
// lesson writes its device-side run once, as a template over one of these (the buffers differ),
// and calls each launcher by its one name; on_devices() makes the run for every device backend
// this build has, with that backend chosen while the run works. The one place in lessons/ that
// says which backends exist.
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "base/device_info.hpp"
#include "common/backend.hpp"
#include "common/lesson.hpp"
#include "emulator/runtime/device.hpp"
#include "emulator/runtime/memory.hpp"
#if GPULAB_HAVE_CUDA
#include "common/gpu_memory.hpp"
#endif

namespace gpulab {

#if GPULAB_HAVE_CUDA
struct GpuTarget {
  static constexpr Backend backend = Backend::gpu;
  template <typename T>
  using DeviceBuffer = gpu::DeviceBuffer<T>;
  template <typename T>
  using HostBuffer = gpu::HostBuffer<T>;  // pinned, so copies run at the bus's speed
  static const DeviceInfo& device() { return device_info(); }
};
#endif

struct EmulatedTarget {
  static constexpr Backend backend = Backend::emulated;
  template <typename T>
  using DeviceBuffer = emulated::DeviceBuffer<T>;  // watched by the checked mode
  template <typename T>
  using HostBuffer = emulated::HostBuffer<T>;
  static const DeviceInfo& device() { return emulated::device(); }
};

// A run with its device backend chosen while it works (UseDevice), so the launchers it calls by
// their one names run there.
class OnDevice : public Run {
 public:
  OnDevice(Backend backend, std::unique_ptr<Run> run) : backend_(backend), run_(std::move(run)) {}
  ~OnDevice() override {
    UseDevice use(backend_);
    run_.reset();
  }
  void poison() override {
    UseDevice use(backend_);
    run_->poison();
  }
  void upload() override {
    UseDevice use(backend_);
    run_->upload();
  }
  void compute() override {
    UseDevice use(backend_);
    run_->compute();
  }
  void download() override {
    UseDevice use(backend_);
    run_->download();
  }
  CheckResult check() const override {
    UseDevice use(backend_);
    return run_->check();
  }
  int block() const override { return run_->block(); }
  std::optional<double> occupancy() const override {
    UseDevice use(backend_);
    return run_->occupancy();
  }
  std::string note() const override {
    UseDevice use(backend_);
    return run_->note();
  }

 private:
  Backend backend_;
  std::unique_ptr<Run> run_;
};

inline RunFactory on_device(Backend backend, RunFactory make) {
  return [backend, make = std::move(make)](const Instance& in, const RunOptions& options) -> std::unique_ptr<Run> {
    UseDevice use(backend);
    return std::make_unique<OnDevice>(backend, make(in, options));
  };
}

// A variant's runs on every device backend this build has: `make.template operator()<Target>()`
// gives the RunFactory for one target, e.g. [&]<typename Target>() { return my_run<Target>(...); }.
template <typename Make>
std::vector<std::pair<Backend, RunFactory>> on_devices(Make make) {
  std::vector<std::pair<Backend, RunFactory>> backends;
#if GPULAB_HAVE_CUDA
  backends.emplace_back(Backend::gpu, on_device(Backend::gpu, make.template operator()<GpuTarget>()));
#endif
  backends.emplace_back(Backend::emulated, on_device(Backend::emulated, make.template operator()<EmulatedTarget>()));
  return backends;
}

// A variant's runs on every device backend this build has, where the run's code is the same for
// every target (it calls launchers by their one names; a GPU-only one says so on the emulator).
inline std::vector<std::pair<Backend, RunFactory>> on_devices(const RunFactory& make) {
  return on_devices([&]<typename Target>() { return make; });
}

// A variant whose runs need what only a GPU has (`needs`: "the tensor cores"): its run on the GPU
// where that backend is built; on the emulator it is skipped with the reason.
template <typename Make>
std::vector<std::pair<Backend, RunFactory>> gpu_only([[maybe_unused]] Make make, const std::string& needs) {
  std::vector<std::pair<Backend, RunFactory>> backends;
#if GPULAB_HAVE_CUDA
  backends.emplace_back(Backend::gpu, on_device(Backend::gpu, make.template operator()<GpuTarget>()));
#endif
  backends.emplace_back(Backend::emulated, not_emulated(needs));
  return backends;
}

// Calls `f.template operator()<Target>()` with the target of a device backend chosen (a thread
// map, a timeline, a training run): what on_devices does for a run, for a single call.
template <typename F>
decltype(auto) with_target(Backend backend, F f) {
  UseDevice use(backend);
#if GPULAB_HAVE_CUDA
  if (backend == Backend::gpu) return f.template operator()<GpuTarget>();
#endif
  if (backend != Backend::emulated) {
    throw NotApplicable("this build has no " + std::string(to_string(backend)) + " device backend");
  }
  return f.template operator()<EmulatedTarget>();
}

// Runs a recording kernel (a thread map's) on a device backend: `record(span)` fills `count`
// records in device memory, which come back to the host.
template <typename Record, typename Launch>
std::vector<Record> record_on(Backend backend, std::size_t count, Launch record) {
  return with_target(backend, [&]<typename Target>() {
    typename Target::template DeviceBuffer<Record> device(count, "records");
    record(device.span());
    std::vector<Record> records(count);
    device.copy_to(records);
    return records;
  });
}

}  // namespace gpulab
