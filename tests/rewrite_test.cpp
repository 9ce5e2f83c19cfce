// The source rewrite's launcher names (emulator/rewrite/rewrite.hpp): each launcher of a kernel file gets
// one name that calls the build of the thread's device backend, and the backends' builds call
// their own launchers.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "emulator/rewrite/rewrite.hpp"
#include "run/two_halves.hpp"

using namespace gpulab::emulated;
using Catch::Matchers::Contains;

namespace {

const std::string kSource = R"(#include "topic/topic.hpp"
namespace gpulab::topic {
namespace {
void helper(int n) {}
}  // namespace
__global__ void kernel(float* y, int n) {}
static void internal(int n) {}
template <typename T> void generic(T t) {}
// a comment (with parentheses) before a launcher
void first(std::span<float> y, const Shape& shape, int block) {
  kernel<<<1, block>>>(y.data(), 1);
}
std::size_t workspace(const Shape& shape) { return shape.n; }
void second(std::span<float> y, const Shape& shape) {
  if (workspace(shape) > 0) first(y, shape, 256);
}
}  // namespace gpulab::topic
)";

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("each launcher gets one name that calls the build of the chosen backend", "[rewrite]") {
  const std::string out = launcher_dispatch(kSource, "kernels/topic/topic.cu", {true, true, ""});
  CHECK_THAT(out, Contains("#include \"topic/topic.hpp\""));
  for (const std::string name : {"first", "workspace", "second"}) {
    CAPTURE(name);
    CHECK(count(out, "::gpulab::gpu::topic::" + name + "(") == 1);
    CHECK(count(out, "::gpulab::emulated::topic::" + name + "(") == 1);
  }
  CHECK_THAT(out, Contains("return ::gpulab::gpu::topic::first(y, shape, block);"));
  // Kernels, helpers in an anonymous namespace, static and template functions are not launchers.
  for (const std::string name : {"kernel", "helper", "internal", "generic"}) {
    CAPTURE(name);
    CHECK(count(out, " " + name + "(") == 0);
  }
}

TEST_CASE("a backend that is not built says what the launcher needs", "[rewrite]") {
  const std::string out = launcher_dispatch(kSource, "kernels/topic/topic.cu", {true, false, "cuFFT"});
  CHECK_THAT(out, Contains("throw_gpu_only(\"topic::first\", \"cuFFT\")"));
  CHECK(count(out, "::gpulab::emulated::topic::") == 0);
}

TEST_CASE("a launcher with an unnamed parameter is refused, with its line", "[rewrite]") {
  const std::string source = "namespace gpulab::topic {\nvoid f(float* y, int /*block*/) {}\n}\n";
  CHECK_THROWS_WITH(launcher_dispatch(source, "x.cu", {true, true, ""}),
                    Contains("x.cu:2") && Contains("parameter 2 of f has no name"));
}

TEST_CASE("a backend's build calls its own launchers, qualified, and keeps every line", "[rewrite]") {
  RewriteOptions options;
  options.emulated = true;
  options.backend_namespace = "emulated";
  const std::string out = rewrite_cuda(kSource, "kernels/topic/topic.cu", options);
  CHECK_THAT(out, Contains("namespace gpulab::topic {} namespace gpulab::emulated::topic { using namespace "
                           "::gpulab::topic;"));
  CHECK_THAT(out, Contains("if (::gpulab::emulated::topic::workspace(shape) > 0) "
                           "::gpulab::emulated::topic::first(y, shape, 256);"));
  // Definitions keep their plain names (the namespace they are in is the build's).
  CHECK_THAT(out, Contains("\nvoid first(std::span<float> y"));
  CHECK(count(out, "\n") == count(kSource, "\n") + 2);  // + the #include of cuda_runtime.h and the #line
}

TEST_CASE("every __shared__ array of a kernel is the block's, bounds with parentheses included", "[rewrite]") {
  const std::string source = R"(namespace gpulab::topic {
__global__ void kernel(unsigned* y) {
  __shared__ unsigned first, totals[8];
  __shared__ unsigned exchange[8][32 * (16 + 1)];
  static __shared__ float scale;
}
}  // namespace gpulab::topic
)";
  RewriteOptions options;
  options.emulated = true;
  options.backend_namespace = "emulated";
  const std::string out = rewrite_cuda(source, "kernels/topic/topic.cu", options);
  CHECK_THAT(out, Contains("auto& totals = ::gpulab::emulated::static_shared<unsigned [8]>"));
  CHECK_THAT(out, Contains("auto& exchange = ::gpulab::emulated::static_shared<unsigned [8][32 * (16 + 1)]>"));
  CHECK_THAT(out, Contains("auto& scale = ::gpulab::emulated::static_shared<float>"));
  CHECK(count(out, "__shared__") == 0);
}

TEST_CASE("a kernel's definition is inlined into the emulator's thread loops, and its inline PTX runs there",
          "[rewrite]") {
  const std::string source = R"(__global__ void kernel(float* c, unsigned a, unsigned b);
__global__ void __launch_bounds__(256) kernel(float* c, unsigned a, unsigned b) {
  unsigned r[2];
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0}, {%2, %3};"
               : "+f"(c[0]), "=r"(r[0])
               : "r"(a), "r"(b));
  asm("bar.sync 0;" ::);
  asm volatile("wgmma.fence;" : GPULAB_OUTPUTS : "l"(a));
}
void host(float* c) { kernel<<<1, 32>>>(c, 1u, 2u); }
)";
  RewriteOptions options;
  const std::string out = rewrite_cuda(source, "kernel.cu", options);
  // The declaration stays as it is; the definition is marked; the launch's call is inlined too.
  CHECK(count(out, "GPULAB_INLINED_KERNEL") == 1);
  CHECK_THAT(out, Contains("__global__ GPULAB_INLINED_KERNEL void __launch_bounds__(256) kernel("));
  CHECK_THAT(out, Contains("gpulab_arguments) __attribute__((always_inline))"));
  CHECK_THAT(out, Contains("::gpulab::emulated::ptx::run(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0}, "
                           "{%2, %3};\", {::gpulab::emulated::ptx::inout(c[0]), ::gpulab::emulated::ptx::out(r[0]), "
                           "::gpulab::emulated::ptx::in(a), ::gpulab::emulated::ptx::in(b)})"));
  CHECK_THAT(out, Contains("::gpulab::emulated::ptx::run(\"bar.sync 0;\", {})"));
  CHECK_THAT(out, Contains("::gpulab::emulated::ptx::unreadable(__FILE__, __LINE__)"));
  CHECK(count(out, "asm") == 0);
  // Every line where it was: `void host` on the same line after the `#line 1` as in the source.
  const std::string body = out.substr(out.find('\n', out.find("#line 1")) + 1);
  CHECK(count(body.substr(0, body.find("void host")), "\n") == count(source.substr(0, source.find("void host")), "\n"));
}

namespace {

// One of the rewrite's jobs (rewrite.hpp's table): a piece of a kernel file, the options it is
// rewritten with, and what its output must hold and must not.
struct Job {
  const char* name;
  std::string source;
  RewriteOptions options;
  std::vector<std::string> holds;
  std::vector<std::string> lacks = {};
};

RewriteOptions emulated_program() { return {}; }
RewriteOptions emulated_in(const char* space) {
  RewriteOptions o;
  o.backend_namespace = space;
  return o;
}
RewriteOptions for_the_gpu() {
  RewriteOptions o;
  o.emulated = false;
  o.backend_namespace = "gpu";
  return o;
}
RewriteOptions header() {
  RewriteOptions o;
  o.header = true;
  return o;
}

const std::vector<Job>& jobs() {
  static const std::vector<Job> all = {
      {"a launch: its arguments evaluated once, then the grid, the block, shared bytes and stream",
       "void f(float* x, int n, cudaStream_t st) { k<<<(n + 255) / 256, 256, 64, st>>>(x, n); }\n",
       emulated_program(),
       {"::gpulab::emulated::launch_kernel(\"k\", __FILE__, __LINE__, ::gpulab::emulated::arguments_once<",
        "ull>([&](const auto&... gpulab_arguments)", "x, n), (n + 255) / 256, 256, 64, st);"},
       {"<<<"}},
      {"a kernel's definition is inlined into the thread loops; a declaration is left alone",
       "__global__ void k(float* x) {}\n__global__ void declared(float* x);\n",
       emulated_program(),
       {"__global__ GPULAB_INLINED_KERNEL void k(", "__global__ void declared(float* x);"}},
      {"extern __shared__ is the launch's dynamic shared memory",
       "__global__ void k() { extern __shared__ float s[]; }\n",
       emulated_program(),
       {"float (&s)[] = ::gpulab::emulated::dynamic_shared<float>(\"s\", \"float\");"},
       {"extern __shared__"}},
      {"each __shared__ variable of a declaration is the block's copy",
       "__global__ void k() { __shared__ float tile[32][33], total; }\n",
       emulated_program(),
       {"auto& tile = ::gpulab::emulated::static_shared<float [32][33]>([] {}, \"tile\", \"float\"",
        "auto& total = ::gpulab::emulated::static_shared<float>([] {}, \"total\", \"float\""}},
      {"volatile in a kernel's code gets the note on warp-synchronous code",
       "__global__ void k(float* s) { volatile float* v = s; }\n",
       emulated_program(),
       {"volatile float* v = s; ::gpulab::emulated::note_volatile(__FILE__, __LINE__);"}},
      {"the tensor cores' inline PTX is carried out by the emulator, operands in and out",
       "__global__ void k() { float c = 0; unsigned a = 0;\n"
       "  asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0}, {%1}, {%1}, {%0};\" : \"+f\"(c) "
       ": \"r\"(a)); }\n",
       emulated_program(),
       {"::gpulab::emulated::ptx::run(\"mma.sync.aligned.m16n8k16",
        "{::gpulab::emulated::ptx::inout(c), ::gpulab::emulated::ptx::in(a)});"},
       {"asm volatile"}},
      {"comments and literals are left alone",
       "void f() {\n  // k<<<1, 1>>>(x);\n  const char* t = \"k<<<1, 1>>>(x)\";\n}\n",
       emulated_program(),
       {"  // k<<<1, 1>>>(x);\n", "  const char* t = \"k<<<1, 1>>>(x)\";\n"},
       {"launch_kernel"}},
      {"a whole program exits non-zero when the checked mode reported an error",
       "int main() { return 0; }\n",
       emulated_program(),
       {"::gpulab::emulated::check::exit_nonzero_on_errors("}},
      {"a learner's header gets no exit line",
       "inline int twice(int x) { return 2 * x; }\n",
       header(),
       {"twice"},
       {"exit_nonzero_on_errors"}},
      {"GPU Lab's own files move to the backend's namespace, in both builds",
       "namespace gpulab::topic {\nvoid f() {}\n}  // namespace gpulab::topic\n",
       emulated_in("emulated"),
       {"namespace gpulab::emulated::topic {"},
       {"exit_nonzero_on_errors"}},
      {"the GPU's build keeps launches and shared memory as nvcc reads them",
       "namespace gpulab::topic {\n__global__ void k() { extern __shared__ float s[]; }\nvoid f() { k<<<1, "
       "32>>>(); }\n}  // namespace gpulab::topic\n",
       for_the_gpu(),
       {"namespace gpulab::gpu::topic {", "extern __shared__ float s[];", "k<<<1, 32>>>();"},
       {"launch_kernel", "dynamic_shared", "GPULAB_INLINED_KERNEL"}},
  };
  return all;
}

}  // namespace

TEST_CASE("each of the rewrite's jobs does what its table row says, and keeps every line where it was", "[rewrite]") {
  for (const Job& job : jobs()) {
    DYNAMIC_SECTION(job.name) {
      const std::string out = rewrite_cuda(job.source, "job.cu", job.options);
      for (const std::string& h : job.holds) CHECK_THAT(out, Contains(h));
      for (const std::string& l : job.lacks) CHECK_THAT(out, !Contains(l));
      // After the `#line 1` that names the file, line k of the output is line k of the source.
      const std::size_t first = out.find("#line 1 \"job.cu\"\n");
      REQUIRE(first != std::string::npos);
      const std::string body = out.substr(first + std::string("#line 1 \"job.cu\"\n").size());
      // (A whole program's exit line comes after a blank line of its own.)
      CHECK(count(body.substr(0, body.find("\n[[maybe_unused]]")), "\n") == count(job.source, "\n"));
    }
  }
}

// What makes a learner's program build in one instrumented piece instead of two halves
// (lessons/run/two_halves.hpp): a device variable of its file's own, a launch through a pointer.
TEST_CASE("a program is built in two halves unless a device variable or a launch needs one piece", "[rewrite]") {
  using gpulab::build::one_piece_reason;
  const auto reason = [](const std::string& source) { return one_piece_reason({source}); };
  // Two halves do: device variables of external linkage, device functions, host statics.
  CHECK(reason("__constant__ float w[3];\n__device__ int hits;\n__managed__ int total = 0;\n"
               "__device__ float table[3] = {1, 2, 3};\n") == "");
  CHECK(reason("static __device__ float helper(int i) { return i; }\nstatic const int kN = 4;\n"
               "static void launch(float* x) { kernel<<<1, kN>>>(x); }\n") == "");
  CHECK(reason("// cudaLaunchKernel(k, 1, 1, args) in a comment\nconst char* s = \"cudaLaunchKernel\";\n") == "");
  CHECK(reason("namespace lab {\n__constant__ float w[3];\n}\n") == "");
  // One piece: a device variable each half would hold its own copy of, a kernel pointer.
  CHECK_THAT(reason("static __constant__ float w[3];\n"), Contains("static, or in an unnamed namespace"));
  CHECK_THAT(reason("__device__ static int hits;\n"), Contains("static"));
  CHECK_THAT(reason("namespace {\n__device__ int hits;\n}\n"), Contains("unnamed namespace"));
  CHECK_THAT(reason("void go(void** args) { cudaLaunchKernel(kernel, 1, 32, args); }\n"), Contains("cudaLaunchKernel"));
  CHECK_THAT(one_piece_reason({"__device__ int x;\n", "static __managed__ int y;\n"}), Contains("static"));
}

// The phased copy (emulator/rewrite/phased_kernel.hpp): a kernel whose barriers the rewrite can
// see gets a second body, a coroutine split at them, on the lines of the first; one it cannot
// see through runs on fibers only.
TEST_CASE("a kernel with its own barriers gets a phased copy on its own lines; one it cannot see through does not",
          "[rewrite]") {
  const std::string source = R"(#include <cstdio>
__global__ void sums(const float* in, float* out, int n) {
  extern __shared__ float s[];
  const int t = threadIdx.x;
  s[t] = t < n ? in[t] : 0.0f;  // __syncthreads() in a comment stays
  __syncthreads();
  if (n == 0) return;
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (t < half) s[t] += max<float>(s[t + half], 0.0f);
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, s[0]);
}
)";
  const std::string out = rewrite_cuda(source, "sums.cu", RewriteOptions{});
  // The copy: after a #line naming the line of the kernel's `{`, barriers awaited, returns the coroutine's.
  const std::string first = "\n#line 2 \"sums.cu\"\nif (::gpulab::emulated::detail::phases_on) {";
  REQUIRE_THAT(out, Contains(first));
  const std::size_t copy = out.find(first), original = out.find("\n#line 2 \"sums.cu\"\n", copy + 1);
  REQUIRE(original != std::string::npos);
  const std::string phased = out.substr(copy, original - copy), rest = out.substr(original);
  CHECK(count(phased, "co_await ::gpulab::emulated::detail::PhaseBarrier{__FILE__, __LINE__};") == 2);
  CHECK(count(phased, "co_return;") == 1);
  CHECK(count(phased, "__syncthreads() in a comment stays") == 1);
  CHECK(count(phased, "\n") == count(rest.substr(0, rest.find("\n}\n") + 1), "\n"));
  // The first body as it was (the fibers' and the checked mode's), its lines where they were.
  CHECK(count(rest, "__syncthreads();") == 2);
  CHECK(count(rest, "co_") == 0);
  CHECK(count(out.substr(0, copy), "\n") == 3);  // the runtime header, #line 1, the #include

  // Fibers only: what the phases could not see or a coroutine cannot hold.
  for (const char* body : {
           "  __syncthreads();\n  v = __shfl_down_sync(0xffffffff, v, 1);\n",  // a warp exchange
           "  __syncthreads();\n  helper(v);\n",                               // a function of the learner's
           "  __syncthreads();\n  v = helper<float>(v);\n",                    // the same, a template
           "  __syncthreads();\n  block.sync();\n",                            // a member call
           "  __syncthreads();\n  auto f = [&] { return v; };\n",              // a lambda
           "  __syncthreads();\n  if (__syncthreads_count(v > 0)) v = 0;\n",   // a barrier that votes
           "  v = (__syncthreads(), 1);\n",                                    // a barrier in an expression
           "  v += 1;\n",                                                      // no barrier at all
       }) {
    CAPTURE(body);
    const std::string kernel = std::string("__global__ void k(float v) {\n") + body + "}\n";
    CHECK_THAT(rewrite_cuda(kernel, "k.cu", RewriteOptions{}), !Contains("run_phased"));
  }
  // The file's own device functions that reach no barrier may be called; one that may, not.
  const std::string helpers =
      "__device__ float twice(float x) { return 2 * x; }\n"
      "__device__ __forceinline__ float quad(float x) { return twice(twice(x)); }\n"
      "__device__ float waits(float x) { __syncthreads(); return x; }\n";
  CHECK_THAT(rewrite_cuda(helpers + "__global__ void k(float v) {\n  v = quad(v);\n  __syncthreads();\n}\n", "k.cu",
                          RewriteOptions{}),
             Contains("run_phased"));
  CHECK_THAT(rewrite_cuda(helpers + "__global__ void k(float v) {\n  v = waits(v);\n  __syncthreads();\n}\n", "k.cu",
                          RewriteOptions{}),
             !Contains("run_phased"));
  // A comparison is no template's call.
  CHECK_THAT(rewrite_cuda("__global__ void k(int t, int s) {\n  if (t < s && s > (t)) t = 1;\n  __syncthreads();\n}\n",
                          "k.cu", RewriteOptions{}),
             Contains("run_phased"));
}
