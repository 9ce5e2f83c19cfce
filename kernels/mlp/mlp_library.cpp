// cuBLAS and CUDA graphs for lesson 07's layer-by-layer step (GPU builds only).
#include "mlp/mlp_library.hpp"

#include <cuda_runtime.h>

#include <optional>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/cuda_handles.hpp"
#include "matmul/matmul_cublas.hpp"

namespace gpulab::mlp {

namespace {

class CudaGraphStep final : public GraphStep {
 public:
  explicit CudaGraphStep(GemmFunction gemm) : gemm_(gemm) {}
  CudaGraphStep(const CudaGraphStep&) = delete;
  CudaGraphStep& operator=(const CudaGraphStep&) = delete;
  void run(const Layout& net, std::span<float> params, std::span<const float> x, std::span<const float> t, int batch,
           float lr, Loss loss_kind, std::span<float> workspace, std::span<float> loss) override;

 private:
  // What a captured graph depends on besides the widths (kept apart in sizes_, so checking a
  // step against the graph allocates nothing).
  struct Key {
    const void* pointers[5];
    int batch;
    float lr;
    Loss loss;
    bool operator==(const Key&) const = default;
  };
  void capture(const Key& key, const Layout& net, std::span<float> params, std::span<const float> x,
               std::span<const float> t, int batch, float lr, Loss loss_kind, std::span<float> workspace,
               std::span<float> loss);

  GemmFunction gemm_;
  std::optional<Stream> stream_;  // the capture's stream (the legacy default stream cannot be captured)
  GraphExec exec_;                // (destroyed before the stream it was captured on)
  Key key_{};
  std::vector<int> sizes_;
};

void CudaGraphStep::run(const Layout& net, std::span<float> params, std::span<const float> x, std::span<const float> t,
                        int batch, float lr, Loss loss_kind, std::span<float> workspace, std::span<float> loss) {
  const Key key{{params.data(), x.data(), t.data(), workspace.data(), loss.data()}, batch, lr, loss_kind};
  if (!exec_ || !(key == key_) || net.sizes != sizes_)
    capture(key, net, params, x, t, batch, lr, loss_kind, workspace, loss);
  exec_.launch(nullptr);
}

void CudaGraphStep::capture(const Key& key, const Layout& net, std::span<float> params, std::span<const float> x,
                            std::span<const float> t, int batch, float lr, Loss loss_kind, std::span<float> workspace,
                            std::span<float> loss) {
  exec_.reset();
  if (!stream_) stream_.emplace();
  const cudaStream_t stream = stream_->get();
  // A cuBLAS handle made inside the capture would fail (it allocates): make it before, even when
  // this is the first cuBLAS call of the program (lesson07_tiny_network --variant cublas_graph).
  if (gemm_ != nullptr) matmul::cublas_ready();  // (the one GEMM passed in is cuBLAS's)
  // [snippet:graph_capture]
  // Nothing runs while capturing: each launch the step queues on `stream` becomes a node of the
  // graph (common/cuda_handles.hpp), which is then instantiated once and launched every step.
  exec_ = capture_graph(stream, [&] {
    layered_step(net, params, x, t, batch, lr, loss_kind, workspace, loss, {gemm_, stream});
  });
  // [/snippet]
  key_ = key;
  sizes_ = net.sizes;
}

}  // namespace

void cublas_gemm(bool ta, bool tb, const float* a, const float* b, float* c, int m, int n, int k, void* stream) {
  matmul::cublas_gemm(ta, tb, a, b, c, m, n, k, stream);
}

std::unique_ptr<GraphStep> graph_step(GemmFunction gemm) { return std::make_unique<CudaGraphStep>(gemm); }

}  // namespace gpulab::mlp
