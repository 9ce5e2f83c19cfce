#include "07_tiny_network/device_steps.hpp"

#include <memory>
#include <stdexcept>

#include "exercises/exercises.hpp"

#if GPULAB_HAVE_CUDA
#include "mlp/mlp_library.hpp"
#endif

namespace gpulab::mlp {

namespace {

using Span = std::span<const float>;

// The launchers written once for both targets, by namespace.
template <Backend B>
struct Launchers;
template <>
struct Launchers<Backend::emulated> {
  static constexpr auto layered_step = emulated::mlp::layered_step;
  static constexpr auto fused_step = emulated::mlp::fused_step;
  static constexpr auto fused_registers_step = emulated::mlp::fused_registers_step;
  static constexpr StepOptions yours{nullptr, nullptr, emulated::exercises::bias_sigmoid,
                                     emulated::exercises::column_sums};
};
#if GPULAB_HAVE_CUDA
template <>
struct Launchers<Backend::gpu> {
  static constexpr auto layered_step = gpu::mlp::layered_step;
  static constexpr auto fused_step = gpu::mlp::fused_step;
  static constexpr auto fused_registers_step = gpu::mlp::fused_registers_step;
  static constexpr StepOptions yours{nullptr, nullptr, gpu::exercises::bias_sigmoid, gpu::exercises::column_sums};
};
#endif

template <Backend B>
DeviceStep kernel_step(const std::string& variant, float lr, Loss loss, int threads) {
  using L = Launchers<B>;
  if (variant == "fused") {
    return [=](const Layout& net, std::span<float> p, Span x, Span t, int batch, std::span<float>,
               std::span<float> out) { L::fused_step(net, p, x, t, batch, lr, loss, out, threads); };
  }
  if (variant == "fused_registers") {
    return [=](const Layout& net, std::span<float> p, Span x, Span t, int batch, std::span<float>,
               std::span<float> out) { L::fused_registers_step(net, p, x, t, batch, lr, loss, out); };
  }
  // `yours`: layered, with the exercise's bias + sigmoid and column sums (exercises/07_tiny_network/).
  const StepOptions options = variant == "yours" ? L::yours : StepOptions{};
  return [=](const Layout& net, std::span<float> p, Span x, Span t, int batch, std::span<float> ws,
             std::span<float> out) { L::layered_step(net, p, x, t, batch, lr, loss, ws, out, options); };
}

#if GPULAB_HAVE_CUDA
// The layer-by-layer step with cuBLAS's GEMMs and/or captured in a CUDA graph.
DeviceStep library_step(bool cublas, bool graph, float lr, Loss loss) {
  const GemmFunction gemm = cublas ? gpu::mlp::cublas_gemm : nullptr;
  if (!graph) {
    return [=](const Layout& net, std::span<float> p, Span x, Span t, int batch, std::span<float> ws,
               std::span<float> out) {
      gpu::mlp::layered_step(net, p, x, t, batch, lr, loss, ws, out, {gemm, nullptr});
    };
  }
  auto step = std::make_shared<gpu::mlp::GraphStep>(gemm);
  return [=](const Layout& net, std::span<float> p, Span x, Span t, int batch, std::span<float> ws,
             std::span<float> out) { step->run(net, p, x, t, batch, lr, loss, ws, out); };
}
#endif

bool is_kernel_step(const std::string& v) {
  return v == "layered" || v == "fused" || v == "fused_registers" || v == "yours";
}

}  // namespace

const std::vector<std::string>& device_step_names(Backend backend) {
  static const std::vector<std::string> gpu{"layered", "cublas", "graph", "cublas_graph", "fused", "fused_registers"};
  static const std::vector<std::string> emulated{"layered", "fused", "fused_registers"};
  static const std::vector<std::string> none;
#if GPULAB_HAVE_CUDA
  if (backend == Backend::gpu) return gpu;
#endif
  return backend == Backend::emulated ? emulated : none;
}

DeviceStep device_step(Backend backend, const std::string& variant, float lr, Loss loss, int fused_threads) {
  if (backend == Backend::emulated && is_kernel_step(variant))
    return kernel_step<Backend::emulated>(variant, lr, loss, fused_threads);
#if GPULAB_HAVE_CUDA
  if (backend == Backend::gpu) {
    if (is_kernel_step(variant)) return kernel_step<Backend::gpu>(variant, lr, loss, fused_threads);
    if (variant == "cublas" || variant == "graph" || variant == "cublas_graph")
      return library_step(variant != "graph", variant != "cublas", lr, loss);
  }
#endif
  throw std::invalid_argument("lesson 07: no step \"" + variant + "\" on the " + std::string(to_string(backend)) +
                              " backend");
}

// Whether a network fits does not depend on the target: the emulator's answer is the GPU's.
bool device_step_fits(const std::string& variant, const Layout& net, int batch) {
  if (variant == "fused") return emulated::mlp::fused_fits(net, batch);
  if (variant == "fused_registers") return emulated::mlp::fused_registers_fits(net);
  return true;
}

bool needs_workspace(const std::string& variant) { return variant != "fused" && variant != "fused_registers"; }

}  // namespace gpulab::mlp
