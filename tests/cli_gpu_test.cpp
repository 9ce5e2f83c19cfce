// The lesson executable on a real GPU: GPU rows, the single-block limit explained, the device's
// own limits enforced. Skipped (exit 77) without a GPU.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "base/device_info.hpp"
#include "support/process.hpp"

using Catch::Matchers::Contains;
using gpulab::test::executable;
using gpulab::test::run_command;

namespace {
const std::string lesson01 = executable("lesson01_vector_add");
}

TEST_CASE("a default run checks every variant on the CPU and the GPU and exits 0", "[cli][gpu]") {
  const auto r = run_command(lesson01 + " --n 1000 --reps 3");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("grid_stride_float4") && Contains("Measured copy bandwidth") && Contains("gpu"));
  CHECK_THAT(r.output, Contains("Limits (from the device's properties): " +
                                std::to_string(gpulab::device_info().max_threads_per_block) + " threads per block"));
  CHECK_FALSE(Catch::Matchers::Contains("FAILED").match(r.output));
}

TEST_CASE("a single block of too many threads is skipped with CUDA's error and the way out", "[cli][gpu]") {
  const auto r = run_command(lesson01 + " --n 2000 --variant single_block --backend gpu");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("skipped") && Contains("at most 1024 threads") && Contains("cannot launch") &&
                           Contains("CUDA said: ") && Contains("'blocks'"));
}

TEST_CASE("a block size over the device's limit is refused with the device's name", "[cli][gpu]") {
  const auto r = run_command(lesson01 + " --block 2048");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("a block holds 1 to 1024 threads on " + gpulab::device_info().name));
}

TEST_CASE("a size that does not fit in GPU memory names the bytes needed and free", "[cli][gpu]") {
  const auto r = run_command(lesson01 + " --n 30000000000 --backend gpu");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("360.00 GB of GPU memory") && Contains("free"));
}

TEST_CASE("the JSON of a GPU run names the device and the measured copy peak", "[cli][gpu]") {
  const auto path = (std::filesystem::temp_directory_path() / "gpulab_gpu_run.json").string();
  const auto r = run_command(lesson01 + " --n 4096 --reps 2 --json '" + path + "'");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(std::ifstream(path));
  CHECK(j["device"]["name"] == gpulab::device_info().name);
  CHECK(j["peaks"]["copy_gbps"].get<double>() > 0);
  bool saw_gpu = false;
  for (const auto& row : j["results"]) {
    if (row["backend"] == "gpu" && row["variant"] != "single_block") {
      saw_gpu = true;
      CHECK(row["passed"] == true);
      CHECK(row["kernel_ms"].get<double>() > 0);
      CHECK(row["h2d_ms"].get<double>() > 0);
      CHECK(row["percent_of_copy_peak"].get<double>() > 0);
    }
  }
  CHECK(saw_gpu);
  std::filesystem::remove(path);
}

TEST_CASE("lesson 08 records a timeline on the GPU and saves it as JSON the app reads", "[cli][gpu]") {
  const auto path = (std::filesystem::temp_directory_path() / "gpulab_timeline.json").string();
  const auto r = run_command(executable("lesson08_streams") + " --timeline --shape 1000003:8:4 --json '" + path + "'");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("sigmoid_overlap") && Contains("engine: copy in") && Contains("stream 3"));
  const auto j = nlohmann::json::parse(std::ifstream(path));
  CHECK(j["kind"] == "gpulab-timeline");
  CHECK(j["spans"].size() == 3 + 3 * 8);  // the serial run's 3 operations, then 3 per chunk
  std::filesystem::remove(path);
}

TEST_CASE("lesson 10 records one step's phases on every GPU, on one clock", "[cli][gpu]") {
  const auto r = run_command(executable("lesson10_multi_gpu") + " --timeline --shape 784x128x10:64");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("data_parallel_cublas_graph") && Contains("GPU 0 step") && Contains("GPU 0 events") &&
                           Contains("forward") && Contains("backward") && Contains("the GPUs' work"));
  const auto refused =
      run_command(executable("lesson10_multi_gpu") + " --timeline --shape 784x128x10:64 --variant cpu");
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.output, Contains("a timeline is recorded for data_parallel"));
}

TEST_CASE("lesson 10 skips the GPU rows that ask for more GPUs than there are, saying so", "[cli][gpu]") {
  const auto r = run_command(executable("lesson10_multi_gpu") + " --shape 2x16x1:8:64 --backend gpu --reps 1");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("asks for 64 GPUs"));
}
