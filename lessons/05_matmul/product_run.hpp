#pragma once
// C = A · B on a device target, for lessons 05 and 09: A and B stored as `Element` (float, or the
// bit patterns of a 16-bit format, converted on the host once, outside every timer), C in float;
// pinned host copies filled once, device A, B and C, the product under test, and its check.
#include <algorithm>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "05_matmul/matmul_problem.hpp"
#include "common/lesson.hpp"
#include "common/targets.hpp"
#include "common/verify.hpp"

namespace gpulab {

template <typename Element>
struct ProductFunctions {
  // The product on device memory; `block` is the threads per block asked for.
  std::function<void(const Element* a, const Element* b, float* c, int m, int n, int k, int block)> multiply;
  // The stored form of one input value (floats as they are).
  std::function<Element(float)> store = {};
  // The check of C (host memory) against the instance's reference; `what` names the run.
  std::function<CheckResult(std::span<const float> c, const ProductInstance& in, const std::string& what)> check;
  // Threads per block the kernel launches (from the block asked for; 0: a library), and its
  // theoretical occupancy there (optional).
  std::function<int(int block)> threads = [](int) { return 0; };
  std::function<double(int block, int m, int n)> occupancy = {};
};

template <typename Target, typename Element>
class ProductRun : public Run {
 public:
  ProductRun(const ProductInstance& in, std::string what, ProductFunctions<Element> f, int block)
      : in_(in),
        what_(std::move(what)),
        f_(std::move(f)),
        block_(block),
        host_a_(in.a.size(), "A (host)"),
        host_b_(in.b.size(), "B (host)"),
        host_c_(static_cast<std::size_t>(in.m) * in.n, "C (host)"),
        a_(in.a.size(), "A"),
        b_(in.b.size(), "B"),
        c_(host_c_.size(), "C") {
    store(in.a, host_a_.span());
    store(in.b, host_b_.span());
  }
  void poison() override {
    c_.fill_bytes(kPoisonByte);
    gpulab::poison(host_c_.span());
  }
  void upload() override {
    a_.copy_from(host_a_.span());
    b_.copy_from(host_b_.span());
  }
  void compute() override { f_.multiply(a_.data(), b_.data(), c_.data(), in_.m, in_.n, in_.k, block_); }
  void download() override { c_.copy_to(host_c_.span()); }
  CheckResult check() const override { return f_.check(host_c_.span(), in_, what_); }
  int block() const override { return f_.threads(block_); }
  std::optional<double> occupancy() const override {
    return f_.occupancy ? std::optional<double>(f_.occupancy(block_, in_.m, in_.n)) : std::nullopt;
  }

 private:
  void store(const std::vector<float>& from, std::span<Element> to) const {
    if (f_.store) {
      std::transform(from.begin(), from.end(), to.begin(), f_.store);
    } else {
      std::copy(from.begin(), from.end(), to.begin());
    }
  }

  const ProductInstance& in_;
  std::string what_;
  ProductFunctions<Element> f_;
  int block_;
  typename Target::template HostBuffer<Element> host_a_, host_b_;
  typename Target::template HostBuffer<float> host_c_;
  typename Target::template DeviceBuffer<Element> a_, b_;
  typename Target::template DeviceBuffer<float> c_;
};

}  // namespace gpulab
