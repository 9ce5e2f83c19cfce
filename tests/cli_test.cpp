// The real lesson executable, driven from the command line: usage, outputs, and every kind of bad
// input (a clear message and exit code 2, never a crash, a hang or a partial file).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/process.hpp"

using Catch::Matchers::Contains;
using gpulab::test::executable;
using gpulab::test::run_command;

namespace {
const std::string lesson01 = executable("lesson01_vector_add");
}

TEST_CASE("the help documents the options and the exit codes", "[cli]") {
  const auto r = run_command(lesson01 + " --help");
  CHECK(r.exit_code == 0);
  for (const char* flag : {"--n", "--sizes", "--sweep", "--block", "--variant", "--backend", "--reps", "--warmup",
                           "--seed", "--csv", "--json", "--list", "Exit codes"}) {
    CAPTURE(flag);
    CHECK_THAT(r.output, Contains(flag));
  }
}

TEST_CASE("the list names every variant with its backends", "[cli]") {
  const auto r = run_command(lesson01 + " --list");
  CHECK(r.exit_code == 0);
  for (const char* v : {"cpu_loop", "cpu_threads", "single_block", "blocks", "grid_stride", "grid_stride_float4"}) {
    CAPTURE(v);
    CHECK_THAT(r.output, Contains(v));
  }
}

TEST_CASE("a CPU run prints a checked table and exits 0", "[cli]") {
  const auto r = run_command(lesson01 + " --backend cpu --n 100000 --reps 3 --seed 99");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("cpu_loop") && Contains("cpu_threads") && Contains("passed") && Contains("seed 99"));
}

TEST_CASE("without a GPU the CPU rows run and one line says why the GPU rows were skipped", "[cli]") {
  const auto r = run_command("env CUDA_VISIBLE_DEVICES= " + lesson01 + " --n 5000 --reps 2");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("GPU rows skipped: no CUDA device:") && Contains("cpu_threads"));
  // The kernels still run, emulated; no row claims the GPU.
  CHECK_THAT(r.output, Contains("emulated (CPU)"));
  CHECK_FALSE(Catch::Matchers::Contains(" gpu ").match(r.output));
}

TEST_CASE("CSV goes to stdout and the JSON file holds a complete report", "[cli]") {
  const auto dir = std::filesystem::temp_directory_path() / "gpulab_cli_test";
  std::filesystem::create_directories(dir);
  const std::string json = (dir / "run.json").string();
  const std::string csv = (dir / "run.csv").string();
  const auto r =
      run_command(lesson01 + " --backend cpu --sizes 10,1000 --reps 2 --csv --json '" + json + "' > '" + csv + "'");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  std::ifstream csv_in(csv);
  std::string header;
  std::getline(csv_in, header);
  CHECK(header.rfind("lesson,variant,backend,timed_on,n,", 0) == 0);
  std::ifstream json_in(json);
  const auto j = nlohmann::json::parse(json_in);
  CHECK(j["results"].size() == 4);  // 2 CPU variants x 2 sizes
  CHECK(j["command"].get<std::string>().find("--sizes 10,1000") != std::string::npos);
  CHECK(j["results"][0]["passed"] == true);
  CHECK(j.contains("gpulab_version"));
  CHECK(j.contains("commit"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("bad input gives a clear message and exit code 2", "[cli]") {
  using Row = std::tuple<std::string, std::string>;
  const auto [args, message] = GENERATE(table<std::string, std::string>({
      Row{"--n abc", "--n"},
      Row{"--n -5", "n must be between 1 and"},
      Row{"--n 0", "n must be between 1 and"},
      Row{"--n 1e30", "--n"},
      Row{"--n 100000000000000", "out of range"},
      Row{"--n 60000000000 --backend cpu", "of host memory"},
      Row{"--sizes 10,abc", "--sizes"},
      Row{"--n 5 --sweep", "excludes"},
      Row{"--block 0", "--block 0 is out of range"},
      Row{"--block 2048 --backend cpu", "1024"},
      Row{"--block -3", "--block -3 is out of range"},
      Row{"--reps 0", "--reps must be between"},
      Row{"--warmup -1", "--warmup must be between"},
      Row{"--frobnicate", "frobnicate"},
      Row{"--variant nope", "unknown variant 'nope'"},
      Row{"--backend tpu", "unknown backend 'tpu'; valid: cpu, gpu, emulated, all"},
      Row{"--variant cpu_loop --backend emulated", "nothing to run"},
      Row{"--json /nonexistent-dir/out.json --backend cpu --n 10", "cannot write --json file"},
  }));
  CAPTURE(args);
  const auto r = run_command(lesson01 + " " + args);
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains(message));
  CHECK_THAT(r.output, Contains("error"));
}

TEST_CASE("the emulated backend runs the GPU kernels on the CPU, checked and labelled", "[cli]") {
  const auto r = run_command(lesson01 + " --backend emulated --n 3000 --json /dev/null");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  for (const char* v : {"single_block", "blocks", "grid_stride", "grid_stride_float4"}) {
    CAPTURE(v);
    CHECK_THAT(r.output, Contains(v));
  }
  CHECK_THAT(r.output, Contains("emulated (CPU)") && Contains("passed") && Contains("CPU emulation"));
  CHECK_THAT(r.output, Contains("1024 threads per block, blocks up to 1024 x 1024 x 64"));
  CHECK_FALSE(Catch::Matchers::Contains("FAILED").match(r.output));
}

#if !GPULAB_HAVE_CUDA
TEST_CASE("an emulated-only build refuses the GPU backend and names the emulated one", "[cli]") {
  const auto r = run_command(lesson01 + " --backend gpu");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("this is an emulated-only build") && Contains("--backend emulated"));
}
#endif

TEST_CASE("lesson 08's timeline needs a GPU and says so; other lessons have none", "[cli]") {
  const auto r = run_command(executable("lesson08_streams") + " --timeline --shape 1000:4:2");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("--timeline records a run on the GPU"));
  const auto other = run_command(lesson01 + " --timeline");
  CHECK(other.exit_code == 2);
  CHECK_THAT(other.output, Contains("lesson 01 has no timeline"));
}

TEST_CASE("lessons 09 and 10 run their CPU rows without a GPU", "[cli]") {
  const auto nine = run_command(executable("lesson09_mixed_precision") + " --n 64 --backend cpu --reps 2");
  INFO(nine.output);
  CHECK(nine.exit_code == 0);
  CHECK_THAT(nine.output, Contains("openblas_fp16_inputs") && Contains("passed"));
  const auto ten = run_command(executable("lesson10_multi_gpu") + " --shape 2x16x1:16:3 --backend cpu --reps 2");
  INFO(ten.output);
  CHECK(ten.exit_code == 0);
  CHECK_THAT(ten.output, Contains("cpu_shards") && Contains("batch 16 × 3 GPUs"));
}

TEST_CASE("lesson 02 prints the thread map of a small launch", "[cli]") {
  const auto r =
      run_command(executable("lesson02_thread_hierarchy") + " --thread-map --n 40 --block 16 --backend emulated");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("<<<3, 16>>>") && Contains("48 threads launched, 8 of them past the end"));
}

TEST_CASE("lesson 03 prints the thread map of a small 2-D launch, coalesced or transposed", "[cli]") {
  const auto r = run_command(executable("lesson03_matrix_add") +
                             " --thread-map --n 5 --block 64 --backend emulated --variant transposed");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("<<<dim3(1, 3), dim3(32, 2)>>>") && Contains("167 of them outside the matrix") &&
                           Contains("     0,0       1,0     0     1         1, 0"));
}

TEST_CASE("a block-size sweep runs each kernel at each size, with its occupancy", "[cli]") {
  const auto r = run_command(executable("lesson02_thread_hierarchy") +
                             " --n 5000 --backend emulated --variant blocks_1d --blocks 32,1024 --json /dev/null");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("occupancy") && Contains("  32  ") && Contains("1024"));
}

TEST_CASE("a reduction tree printed level by level (--steps), as the emulator ran it", "[cli]") {
  const auto r =
      run_command(executable("lesson13_reduction") + " --steps --n 256 --variant sequential_addressing --seed 5");
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("sum_sequential_addressing — block 0, 256 threads; 'partial' (256 × float)") &&
                           Contains("phase 1 (until the __syncthreads() at kernels/reduction/reduction.cu:") &&
                           Contains("128 threads wrote") && Contains("thread 0: read partial[0] = ") &&
                           Contains("partial[128] = ") && Contains("phase 8") && Contains("1 thread wrote"));
}

TEST_CASE("thread maps, step recordings and block sweeps refuse what they cannot do", "[cli]") {
  using Row = std::tuple<std::string, std::string, std::string>;
  const auto [program, args, message] = GENERATE(table<std::string, std::string, std::string>({
      Row{"lesson01_vector_add", "--thread-map --n 10", "has no thread map"},
      Row{"lesson02_thread_hierarchy", "--thread-map --n 5000 --backend emulated", "one small size"},
      Row{"lesson03_matrix_add", "--thread-map --n 65 --backend emulated", "--n 1 to 64"},
      Row{"lesson01_vector_add", "--steps --n 10", "draws nothing step by step (lessons that do: 13, 14, 15, 19)"},
      Row{"lesson13_reduction", "--steps --n 5000", "--n 1 to 4096"},
      Row{"lesson13_reduction", "--steps --n 64 --variant cub", "needs CUB"},
      Row{"lesson02_thread_hierarchy", "--blocks 32,0", "--block 0 is out of range"},
      Row{"lesson02_thread_hierarchy", "--blocks 32 --block 64", "excludes"},
  }));
  CAPTURE(program, args);
  const auto r = run_command(executable(program) + " " + args);
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains(message));
}

TEST_CASE("an unknown variant's message lists the valid ones", "[cli]") {
  const auto r = run_command(lesson01 + " --variant nope");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("valid: cpu_loop, cpu_threads, single_block, blocks, grid_stride, "
                                "grid_stride_float4, yours, yours_grid_stride, all"));
}

TEST_CASE("an unwritable --json path leaves no file behind", "[cli]") {
  const auto dir = std::filesystem::temp_directory_path() / "gpulab_readonly_test";
  std::filesystem::create_directories(dir);
  std::filesystem::permissions(dir, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  const std::string path = (dir / "out.json").string();
  const auto r = run_command(lesson01 + " --backend cpu --n 10 --json '" + path + "'");
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all);
  // root ignores directory permissions; only check the refusal where it applies.
  if (r.exit_code == 2) {
    CHECK_THAT(r.output, Contains("cannot write --json file"));
  }
  CHECK((r.exit_code == 2 || r.exit_code == 0));
  if (r.exit_code == 0) CHECK(nlohmann::json::parse(std::ifstream(path)).contains("results"));
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("lesson 06 runs a layer by its shape and refuses shapes it cannot take", "[cli]") {
  const std::string lesson06 = executable("lesson06_conv");
  const auto ok = run_command(lesson06 + " --shape 2x3x17x19:5:3x3 --backend cpu,emulated --reps 1 --warmup 0");
  INFO(ok.output);
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.output, Contains("2x3x17x19→5 3x3 p1 s1") && Contains("winograd") && Contains("passed"));
  // The planted bugs run only when named, and fail their check (exit 1).
  CHECK_FALSE(Contains("bug_barrier").match(ok.output));
  const auto bug = run_command(lesson06 + " --shape 2x3x17x19:5:3x3 --backend emulated --variant bug_channels");
  CHECK(bug.exit_code == 1);
  CHECK_THAT(bug.output, Contains("FAILED"));
  for (const char* bad : {"1x1x8x8:1:40x40", "1x1x8x8", "1x1x4x4:1:9x9:0", "1x1x8x8:1:3x3:1:9"}) {
    CAPTURE(bad);
    const auto r = run_command(lesson06 + " --shape " + bad);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains("--shape") && Contains("NxCxHxW:K:RxS"));
  }
  CHECK(run_command(lesson06 + " --shape 1x1x8x8:1:3x3 --n 8").exit_code == 2);
  const auto no_shape = run_command(lesson01 + " --shape 1x1x8x8:1:3x3");
  CHECK(no_shape.exit_code == 2);
  CHECK_THAT(no_shape.output, Contains("takes no --shape"));
}

TEST_CASE("lesson 07 trains on a dataset and draws the boundary in text; bad requests exit 2", "[cli]") {
  const std::string lesson07 = executable("lesson07_tiny_network");
  const auto ok = run_command(lesson07 + " --train moons --backend cpu");
  INFO(ok.output);
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.output, Contains("2x16x16x1 on moons") && Contains("250 epochs") && Contains("100.0 %") &&
                            Contains("Decision boundary") && Contains("#") && Contains("O") && Contains("x"));
  const auto emulated = run_command(lesson07 + " --train xor --epochs 3 --backend emulated --variant layered");
  CHECK(emulated.exit_code == 0);
  CHECK_THAT(emulated.output, Contains("layered on the emulated backend"));
  for (const char* bad :
       {" --train nonsense --backend cpu", " --train moons --epochs 0 --backend cpu", " --epochs 5",
        " --train moons --backend cpu --variant fused", " --train moons --backend emulated --variant cublas"}) {
    CAPTURE(bad);
    const auto r = run_command(lesson07 + bad);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Contains("error"));
  }
  const auto other = run_command(executable("lesson01_vector_add") + " --train moons");
  CHECK(other.exit_code == 2);
  CHECK_THAT(other.output, Contains("lesson 07 does"));
}

TEST_CASE(
    "the memory report (--memory-report) counts each kernel's requests, sectors and bank conflicts on the emulator",
    "[cli]") {
  const std::string json = (std::filesystem::temp_directory_path() / "gpulab_memory_report.json").string();
  const auto r = run_command(executable("lesson03_matrix_add") +
                             " --backend emulated --memory-report --n 256 --reps 1 --warmup 0 --variant "
                             "coalesced,transposed --json " +
                             json);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  // 256 × 256 floats: 2,048 warps each load twice; coalesced 4 sectors a request, transposed 32.
  CHECK_THAT(r.output, Contains("add_coalesced (1 launch") &&
                           Contains("4,096 requests          16,384 sectors      4.00 per request  100.0 %") &&
                           Contains("4,096 requests         131,072 sectors     32.00 per request   12.5 %") &&
                           Contains("kernels/matrix_add/matrix_add.cu:"));
  std::ifstream in(json);
  const auto report = nlohmann::json::parse(in);
  const auto& memory = report.at("results").at(0).at("memory").at(0);
  CHECK(memory.at("kernel") == "add_coalesced");
  CHECK(memory.at("global_load").at("sectors") == 16384);
  std::filesystem::remove(json);

  const auto tiles =
      run_command(executable("lesson05_matmul") +
                  " --backend emulated --memory-report --n 64 --reps 1 --warmup 0 --variant register_2d");
  INFO(tiles.output);
  CHECK(tiles.exit_code == 0);
  CHECK_THAT(tiles.output, Contains("shared loads") && Contains("bank conflicts"));

  const auto refused = run_command(lesson01 + " --backend cpu --memory-report --n 100");
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.output, Contains("--memory-report counts on the emulator"));
}
