// The source rewrite's launcher names (emulator/rewrite.hpp): each launcher of a kernel file gets
// one name that calls the build of the thread's device backend, and the backends' builds call
// their own launchers.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "emulator/rewrite.hpp"

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
