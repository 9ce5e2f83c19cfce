#pragma once
// Where a GPU variant runs: on the GPU (built with the CUDA toolkit) or on the emulator. A
// lesson writes its device-side run once — its buffers (DeviceBuffer, HostBuffer: device_memory.hpp)
// and the launchers it calls by their one names go to the backend chosen while it is made and
// works — and on_devices() makes the run for every device backend this build has, with that
// backend chosen. The one place in lessons/ that says which backends exist.
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "common/backend.hpp"
#include "common/device_memory.hpp"
#include "common/lesson.hpp"

namespace gpulab {

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

// A variant's runs on every device backend this build has: the same run code, made and run with
// each backend chosen in turn.
inline std::vector<std::pair<Backend, RunFactory>> on_devices(const RunFactory& make) {
  std::vector<std::pair<Backend, RunFactory>> backends;
  if (kGpuBuilt) backends.emplace_back(Backend::gpu, on_device(Backend::gpu, make));
  backends.emplace_back(Backend::emulated, on_device(Backend::emulated, make));
  return backends;
}

// A variant whose runs need what only a GPU has (`needs`: "the tensor cores"): its run on the GPU
// where that backend is built; on the emulator it is skipped with the reason.
inline std::vector<std::pair<Backend, RunFactory>> gpu_only(const RunFactory& make, const std::string& needs) {
  std::vector<std::pair<Backend, RunFactory>> backends;
  if (kGpuBuilt) backends.emplace_back(Backend::gpu, on_device(Backend::gpu, make));
  backends.emplace_back(Backend::emulated, not_emulated(needs));
  return backends;
}

// Calls f() with a device backend chosen (a thread map, a timeline, a training run): what
// on_devices does for a run, for a single call.
template <typename F>
decltype(auto) on_backend(Backend backend, F f) {
  if (backend == Backend::cpu || (backend == Backend::gpu && !kGpuBuilt)) {
    throw NotApplicable("this build has no " + std::string(to_string(backend)) + " device backend");
  }
  UseDevice use(backend);
  return f();
}

// Runs a recording kernel (a thread map's) on a device backend: `record(span)` fills `count`
// records in device memory, which come back to the host.
template <typename Record, typename Launch>
std::vector<Record> record_on(Backend backend, std::size_t count, Launch record) {
  return on_backend(backend, [&]() {
    DeviceBuffer<Record> device(count, "records");
    record(device.span());
    std::vector<Record> records(count);
    device.copy_to(records);
    return records;
  });
}

}  // namespace gpulab
