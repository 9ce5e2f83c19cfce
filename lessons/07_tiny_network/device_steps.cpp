#include "07_tiny_network/device_steps.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "mlp/mlp_library.hpp"

namespace gpulab::mlp {

namespace {

using Span = std::span<const float>;

DeviceStep kernel_step(const std::string& variant, float lr, Loss loss, int threads) {
  if (variant == "fused") {
    return [=](const Layout& net, std::span<float> p, Span x, Span t, int batch, std::span<float>,
               std::span<float> out) { fused_step(net, p, x, t, batch, lr, loss, out, threads); };
  }
  if (variant == "fused_registers") {
    return [=](const Layout& net, std::span<float> p, Span x, Span t, int batch, std::span<float>,
               std::span<float> out) { fused_registers_step(net, p, x, t, batch, lr, loss, out); };
  }
  return [=](const Layout& net, std::span<float> p, Span x, Span t, int batch, std::span<float> ws,
             std::span<float> out) { layered_step(net, p, x, t, batch, lr, loss, ws, out, {}); };
}

// The layer-by-layer step with cuBLAS's GEMMs and/or captured in a CUDA graph.
DeviceStep library_step(bool cublas, bool graph, float lr, Loss loss) {
  const GemmFunction gemm = cublas ? cublas_gemm : nullptr;
  if (!graph) {
    return [=](const Layout& net, std::span<float> p, Span x, Span t, int batch, std::span<float> ws,
               std::span<float> out) {
      layered_step(net, p, x, t, batch, lr, loss, ws, out, {gemm, nullptr});
    };
  }
  std::shared_ptr<GraphStep> step = graph_step(gemm);
  return [=](const Layout& net, std::span<float> p, Span x, Span t, int batch, std::span<float> ws,
             std::span<float> out) { step->run(net, p, x, t, batch, lr, loss, ws, out); };
}

bool is_kernel_step(const std::string& v) {
  return v == "layered" || v == "fused" || v == "fused_registers" || v == "yours";
}

}  // namespace

const std::vector<std::string>& device_step_names(Backend backend) {
  static const std::vector<std::string> gpu{"layered", "cublas", "graph", "cublas_graph", "fused", "fused_registers"};
  static const std::vector<std::string> emulated{"layered", "fused", "fused_registers"};
  static const std::vector<std::string> none;
  if (backend == Backend::gpu && kGpuBuilt) return gpu;
  return backend == Backend::emulated ? emulated : none;
}

// The step calls the launchers by their one names: it runs on the device backend the calling
// thread has chosen (the runs and the training choose `backend`).
DeviceStep device_step(Backend backend, const std::string& variant, float lr, Loss loss, int fused_threads) {
  const auto& names = device_step_names(backend);
  if (std::find(names.begin(), names.end(), variant) != names.end() || variant == "yours") {
    if (is_kernel_step(variant)) return kernel_step(variant, lr, loss, fused_threads);
    return library_step(variant != "graph", variant != "cublas", lr, loss);
  }
  throw std::invalid_argument("lesson 07: no step \"" + variant + "\" on the " + std::string(to_string(backend)) +
                              " backend");
}

// Whether a network fits does not depend on the target: the emulator's answer is the GPU's.
bool device_step_fits(const std::string& variant, const Layout& net, int batch) {
  if (variant == "fused") return fused_fits(net, batch);
  if (variant == "fused_registers") return fused_registers_fits(net);
  return true;
}

bool needs_workspace(const std::string& variant) { return variant != "fused" && variant != "fused_registers"; }

}  // namespace gpulab::mlp
