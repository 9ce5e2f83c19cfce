#pragma once
// Where a launcher runs. Each kernel file builds once per device backend (the GPU, where the CUDA
// toolkit is present, and the emulator), and each launcher has one name: gpulab::vector_add::blocks
// runs the build of the backend the calling thread has chosen (UseDevice), so the code that calls
// it — a lesson, a test, the app — is written once for both.
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpulab {

// Where a variant runs: the CPU, the GPU, or the GPU kernel emulated on the CPU.
enum class Backend { cpu, gpu, emulated };

inline constexpr Backend kAllBackends[] = {Backend::cpu, Backend::gpu, Backend::emulated};

std::string_view to_string(Backend backend);
std::optional<Backend> parse_backend(std::string_view name);

// Whether this build has the GPU backend (built with the CUDA toolkit). Defined in backend.cpp, not
// here: a header that said GPULAB_HAVE_CUDA would make every file that includes it differ between
// the default build and the emulated-only one, and ccache could then share none of them.
extern const bool kGpuBuilt;

// The device backend launchers run on in this thread: gpu or emulated. Until a UseDevice says
// otherwise, the GPU where it is built, else the emulator.
Backend active_device();

// Chooses the device backend for the calling thread while it lives (they nest).
class UseDevice {
 public:
  explicit UseDevice(Backend backend);
  ~UseDevice();
  UseDevice(const UseDevice&) = delete;
  UseDevice& operator=(const UseDevice&) = delete;

 private:
  Backend previous_;
};

// Thrown by what cannot run this size, configuration or backend: the run is reported as skipped,
// with the reason, rather than failed (a single block of n > 1024 threads; cuFFT on the emulator).
class NotApplicable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What a launcher that needs `needs` (cuBLAS, tensor cores, ...) throws where it cannot run: on the
// emulator, or in a build without the GPU backend.
[[noreturn]] void throw_gpu_only(const char* launcher, const char* needs);

}  // namespace gpulab
