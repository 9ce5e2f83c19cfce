#pragma once
// The source rewrite that lets one CUDA file build twice — by nvcc for the GPU and as plain C++
// against the emulator — and both builds live in one program. It changes as little as it can and
// keeps every line where it was (a `#line` names the original file), so compiler messages point
// at the learner's file and line:
//
//   emulated build    kernel<<<grid, block, shared, stream>>>(args)
//                  -> ::gpulab::emulated::launch_kernel("kernel", __FILE__, __LINE__,
//                         ::gpulab::emulated::arguments_once<FILE_TAG>([&](const auto&... a) { kernel(a...); }, args),
//                         grid, block, shared, stream)
//                     (the arguments are evaluated once, on the host, as a GPU copies them into the
//                     kernel's parameters; each CUDA thread calls the kernel with those copies, as a
//                     GPU thread starts; default and deduced template arguments work as in any call;
//                     the lambda is always_inline, outside kernels)
//                     __global__ void kernel(...) { ... }
//                  -> __global__ GPULAB_INLINED_KERNEL void kernel(...) { ... }
//                     (a definition is inlined into the emulator's checked and fast thread loops;
//                     one whose barriers are in plain view gets a second body first, a coroutine
//                     split at them, for the fast path: phased_kernel.hpp)
//                     asm volatile("mma.sync..." : "+f"(c) : "r"(a));
//                  -> ::gpulab::emulated::ptx::run("mma.sync...", {ptx::inout(c), ptx::in(a)});
//                     (the tensor cores' PTX, carried out by the emulator: ptx.hpp; operands it
//                     cannot read, through a macro, fail the launch that reaches them)
//                     extern __shared__ float s[];
//                  -> float (&s)[] = ::gpulab::emulated::dynamic_shared<float>("s", "float");
//                     (the launch's dynamic shared memory: the emulator's per-block buffer; at
//                     namespace scope a macro, as the buffer belongs to the worker running the block)
//                     __shared__ float tile[32][33], total;   (in a function)
//                  -> auto& tile = ::gpulab::emulated::static_shared<float[32][33]>([] {}, "tile", ...);
//                     auto& total = ::gpulab::emulated::static_shared<float>([] {}, "total", ...);
//                     (the block's copy, in the worker's shared-memory window, where the checked
//                     mode sees every access: see shared_memory.hpp)
//                     volatile in a kernel's code (the warp-synchronous style)
//                  -> a call after it that makes the emulator say, when a kernel runs it, that the
//                     code is right only if a warp's lanes run in lockstep, and what to write instead
//                     a whole program (no namespace option): a last line that makes it exit non-zero
//                     when the checked mode reported an error
//   both builds,      namespace gpulab::topic { ... }  ->  namespace gpulab::gpu::topic { ... }
//   on request        (or gpulab::emulated::topic): GPU Lab's own kernel files, so the two builds'
//                     functions have different names in one program. A learner's program needs it not.
//
// Comments, string and character literals are left alone.
#include <stdexcept>
#include <string>

namespace gpulab::emulated {

struct RewriteOptions {
  bool emulated = true;           // rewrite launches and extern __shared__
  std::string backend_namespace;  // "gpu" or "emulated": namespace gpulab::X becomes gpulab::<it>::X
  bool header = false;            // a learner's header (included, perhaps more than once): no exit line
  bool stop_at_reports = false;   // a whole program whose launches fail at a checked-mode report (graded)
};

// The rewritten source, starting with `#line 1 "file"`. Throws std::invalid_argument for a
// launch it cannot parse, naming the line.
std::string rewrite_cuda(const std::string& source, const std::string& file, const RewriteOptions& options);

// What a kernel file's launchers are built for: the GPU (with the CUDA toolkit), the emulator (every
// file but the GPU-only ones, which say what they `needs`: "cuFFT").
struct DispatchOptions {
  bool gpu = false;
  bool emulated = false;
  std::string needs;
};

// The one name of each launcher `source` defines (a function at namespace scope in gpulab::X that
// is not a kernel, device function, template, inline or static): a C++ file that defines
// gpulab::X::name to call gpulab::gpu::X::name or gpulab::emulated::X::name, the builds the
// rewrite above makes, by the thread's active_device() (common/backend.hpp); a backend that is
// not built throws NotApplicable with the reason. Throws std::invalid_argument for a launcher
// with an unnamed parameter.
std::string launcher_dispatch(const std::string& source, const std::string& file, const DispatchOptions& options);

// A source file's whole text (what the rewrite's two users, the build step and gpulab_run, read);
// throws std::invalid_argument naming the file when it cannot be read.
std::string read_source(const std::string& path);

}  // namespace gpulab::emulated
