#pragma once
// Runs for lessons whose input is one array of integers (or bytes) and whose output is one array
// of integers, checked exactly: no rounding, so every order of the work must give the same bits
// (histogram, scan). A lesson supplies the data (ExactInstance) and, per variant, a function from
// the input span to the output span.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/lesson.hpp"
#include "common/targets.hpp"

namespace gpulab {

template <typename In, typename Out>
struct ExactInstance : Instance {
  std::string topic;    // "histogram", for messages
  std::string element;  // what an output element is called: "bin", "y"
  std::vector<In> x;
  std::vector<Out> expected;
};

// A variant's work: input and output spans (host or device), the problem, the block size asked for.
template <typename In, typename Out>
using ExactFunction = std::function<void(std::span<const In>, std::span<Out>, const Problem&, int block)>;

// Every element exactly; one that still holds the poison is named as never written.
template <typename In, typename Out>
CheckResult check_exact(std::span<const Out> got, const ExactInstance<In, Out>& in, const std::string& what) {
  CheckResult r;
  r.checked = got.size();
  double error = 0, norm = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto expected = static_cast<double>(in.expected[i]);
    norm += expected * expected;
    if (got[i] == in.expected[i]) continue;
    error += (static_cast<double>(got[i]) - expected) * (static_cast<double>(got[i]) - expected);
    if (r.mismatches++ < 5) r.first.push_back({i, expected, static_cast<double>(got[i])});
  }
  r.rel_error = norm > 0 ? std::sqrt(error / norm) : std::sqrt(error);
  r.passed = r.mismatches == 0;
  if (!r.passed) {
    const std::size_t i = r.first.front().index;
    Out poison;
    std::memset(&poison, kPoisonByte, sizeof poison);
    r.message =
        fmt::format("{}: {} of {} wrong; {} {} is {}{}, expected {}", what, r.mismatches, got.size(), in.element, i,
                    got[i], got[i] == poison ? " (never written: still the poison)" : "", in.expected[i]);
  }
  return r;
}

template <typename In, typename Out>
class CpuExactRun : public Run {
 public:
  CpuExactRun(const ExactInstance<In, Out>& in, std::string name, ExactFunction<In, Out> fn)
      : in_(in), name_(std::move(name)), fn_(std::move(fn)), out_(in.expected.size()) {}
  void poison() override { std::memset(out_.data(), kPoisonByte, out_.size() * sizeof(Out)); }
  void compute() override { fn_(in_.x, out_, in_.problem, 0); }
  CheckResult check() const override { return check_exact<In, Out>(out_, in_, in_.topic + " " + name_ + " (cpu)"); }

 private:
  const ExactInstance<In, Out>& in_;
  std::string name_;
  ExactFunction<In, Out> fn_;
  std::vector<Out> out_;
};

// On the device backend chosen while it is made (the GPU or the emulator): the input in the
// backend's host memory (pinned on the GPU), copied in; the output back.
template <typename In, typename Out>
class KernelExactRun : public Run {
 public:
  KernelExactRun(const ExactInstance<In, Out>& in, std::string name, int block, ExactFunction<In, Out> fn)
      : in_(in),
        backend_(active_device()),
        name_(std::move(name)),
        block_(block),
        fn_(std::move(fn)),
        host_x_(in.x.size(), "x"),
        x_(in.x.size(), "x"),
        host_out_(in.expected.size(), "output (host)"),
        out_(in.expected.size(), in.element.c_str()) {
    std::copy(in.x.begin(), in.x.end(), host_x_.data());
  }
  void poison() override {
    out_.fill_bytes(kPoisonByte);
    std::memset(host_out_.data(), kPoisonByte, host_out_.bytes());
  }
  void upload() override { x_.copy_from(host_x_.span()); }
  void compute() override { fn_(x_.span(), out_.span(), in_.problem, block_); }
  void download() override { out_.copy_to(host_out_.span()); }
  CheckResult check() const override {
    return check_exact<In, Out>(host_out_.span(), in_,
                                in_.topic + " " + name_ + " (" + std::string(to_string(backend_)) + ")");
  }
  int block() const override { return block_; }

 private:
  const ExactInstance<In, Out>& in_;
  Backend backend_;
  std::string name_;
  int block_;
  ExactFunction<In, Out> fn_;
  HostBuffer<In> host_x_;
  DeviceBuffer<In> x_;
  HostBuffer<Out> host_out_;
  DeviceBuffer<Out> out_;
};

template <typename In, typename Out>
std::vector<std::pair<Backend, RunFactory>> exact_cpu(const std::string& name, ExactFunction<In, Out> fn) {
  using Data = ExactInstance<In, Out>;
  return {{Backend::cpu, factory<Data>([=](const Data& in, const RunOptions&) {
             return std::make_unique<CpuExactRun<In, Out>>(in, name, fn);
           })}};
}

// A kernel variant on every device backend this build has.
template <typename In, typename Out>
std::vector<std::pair<Backend, RunFactory>> exact_kernels(const std::string& name, ExactFunction<In, Out> fn) {
  using Data = ExactInstance<In, Out>;
  return on_devices(factory<Data>([=](const Data& in, const RunOptions& o) {
    return std::make_unique<KernelExactRun<In, Out>>(in, name, o.block, fn);
  }));
}

}  // namespace gpulab
