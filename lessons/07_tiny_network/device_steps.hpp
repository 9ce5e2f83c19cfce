#pragma once
// Lesson 07's device-side steps by name, for the GPU or the emulator: the lesson times them, the
// training runs (training.hpp) and the tests call them. All spans are device memory.
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "common/backend.hpp"
#include "mlp/mlp.hpp"

namespace gpulab::mlp {

using DeviceStep =
    std::function<void(const Layout& net, std::span<float> params, std::span<const float> x, std::span<const float> t,
                       int batch, std::span<float> workspace, std::span<float> loss)>;

// "layered", "fused", "fused_registers" (GPU and emulator), "cublas", "graph", "cublas_graph"
// (GPU only). Each call gives a new step (a graph's keeps its captured graph). Throws
// std::invalid_argument for a name that does not run on `backend`.
DeviceStep device_step(Backend backend, const std::string& variant, float lr, Loss loss, int fused_threads = 512);
const std::vector<std::string>& device_step_names(Backend backend);
// Whether the step runs here: fused and fused_registers only for networks that fit them.
bool device_step_fits(const std::string& variant, const Layout& net, int batch);
bool needs_workspace(const std::string& variant);  // the layer-by-layer ones

}  // namespace gpulab::mlp
