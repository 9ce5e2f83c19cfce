// The shared harness: statistics, checking, inputs, measurement, results and their outputs.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "common/crossover.hpp"
#include "common/measure.hpp"
#include "common/memory_check.hpp"
#include "common/random.hpp"
#include "common/results.hpp"
#include "common/stats.hpp"
#include "common/verify.hpp"
#include "registry.hpp"

using namespace gpulab;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;

TEST_CASE("summarize gives the median, min, max and mean of known samples", "[stats]") {
  const std::vector<double> odd = {3, 1, 2, 10, 4};
  const Stats s = summarize(odd);
  CHECK(s.median == 3);
  CHECK(s.min == 1);
  CHECK(s.max == 10);
  CHECK_THAT(s.mean, WithinRel(4.0, 1e-12));
  CHECK(s.count == 5);

  const std::vector<double> even = {4, 1, 3, 2};
  CHECK(summarize(even).median == 2.5);

  const Stats empty = summarize(std::vector<double>{});
  CHECK(empty.count == 0);
  CHECK(empty.median == 0);
}

TEST_CASE("compare passes results within the tolerance and reports the first mismatches", "[verify]") {
  const std::vector<double> expected = {1.0, 2.0, 3.0, 4.0};
  std::vector<float> got = {1.0f, 2.0f, 3.0f, 4.0f};
  CheckResult ok = compare(got, expected, {1e-7, 0}, "test");
  CHECK(ok.passed);
  CHECK(ok.rel_error == 0);

  got[2] = 3.5f;
  CheckResult bad = compare(got, expected, {1e-7, 0}, "vector_add blocks (gpu)");
  CHECK_FALSE(bad.passed);
  CHECK(bad.mismatches == 1);
  REQUIRE(bad.first.size() == 1);
  CHECK(bad.first[0].index == 2);
  CHECK(bad.first[0].expected == 3.0);
  CHECK(bad.first[0].got == 3.5);
  CHECK_THAT(bad.message, Contains("1 of 4 elements differ; first at 2: expected 3, got 3.5"));
  CHECK_THAT(bad.message, Contains("vector_add blocks (gpu)"));
}

TEST_CASE("compare names an element that was never written", "[verify]") {
  std::vector<float> got(1000, 0.5f);
  const std::vector<double> expected(1000, 0.5);
  poison(std::span(got).subspan(990));
  CHECK(is_poison(got[995]));
  CHECK_FALSE(is_poison(0.5f));
  const CheckResult r = compare(got, expected, {1e-7, 0}, "test");
  CHECK_FALSE(r.passed);
  CHECK(r.mismatches == 10);
  CHECK_THAT(r.message, Contains("first at 990") && Contains("never written"));
}

TEST_CASE("compare treats NaN as a failure unless the reference is NaN too", "[verify]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const float fnan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<double> expected = {1.0, nan};
  std::vector<float> got = {1.0f, fnan};
  CHECK(compare(got, expected, {1e-7, 0}, "t").passed);

  got = {fnan, fnan};
  const CheckResult r = compare(got, expected, {1e-7, 0}, "t");
  CHECK_FALSE(r.passed);
  CHECK(std::isinf(r.rel_error));

  got = {1.0f, 1.0f};
  CHECK_FALSE(compare(got, expected, {1e-7, 0}, "t").passed);
}

TEST_CASE("compare applies relative and absolute tolerances", "[verify]") {
  const std::vector<double> expected = {1000.0, 0.0};
  std::vector<float> got = {1000.01f, 1e-6f};
  CHECK(compare(got, expected, {1e-4, 1e-5}, "t").passed);
  CHECK_FALSE(compare(got, expected, {1e-6, 1e-5}, "t").passed);  // 1e-5 relative is too much
  CHECK_FALSE(compare(got, expected, {1e-4, 1e-7}, "t").passed);  // 1e-6 off zero is too much
}

TEST_CASE("compare refuses outputs of the wrong size", "[verify]") {
  const std::vector<double> expected(3, 1.0);
  const std::vector<float> got(2, 1.0f);
  const CheckResult r = compare(got, expected, {1e-7, 0}, "t");
  CHECK_FALSE(r.passed);
  CHECK_THAT(r.message, Contains("2 elements, expected 3"));
}

TEST_CASE("random inputs are reproducible from the seed and differ between streams and seeds", "[random]") {
  std::vector<float> a(10000), b(10000), c(10000), d(10000);
  fill_uniform(a, 42, 0, -1.0f, 1.0f);
  fill_uniform(b, 42, 0, -1.0f, 1.0f);
  fill_uniform(c, 42, 1, -1.0f, 1.0f);
  fill_uniform(d, 43, 0, -1.0f, 1.0f);
  CHECK(a == b);
  CHECK(a != c);
  CHECK(a != d);
  double sum = 0;
  for (float x : a) {
    REQUIRE(x >= -1.0f);
    REQUIRE(x <= 1.0f);
    sum += x;
  }
  CHECK(std::abs(sum / 10000) < 0.05);  // centred
  CHECK(*std::min_element(a.begin(), a.end()) < -0.99f);
  CHECK(*std::max_element(a.begin(), a.end()) > 0.99f);
}

namespace {
// A run that records what the harness did to it.
struct FakeRun : Run {
  std::vector<float> out = std::vector<float>(8);
  std::vector<double> expected = std::vector<double>(8, 2.0);
  int poisons = 0, computes = 0;
  mutable int checks = 0;
  bool correct = true;
  bool wrote_since_poison = false;
  void poison() override {
    gpulab::poison(out);
    ++poisons;
    wrote_since_poison = false;
  }
  void compute() override {
    ++computes;
    if (correct) std::fill(out.begin(), out.end(), 2.0f);
    wrote_since_poison = true;
  }
  CheckResult check() const override {
    ++checks;
    return compare(out, expected, {1e-7, 0}, "fake");
  }
};
}  // namespace

TEST_CASE("measure checks first, warms up, poisons before every run and re-checks after timing", "[measure]") {
  FakeRun run;
  RunOptions options;
  options.reps = 5;
  options.warmup = 2;
  const Measurement m = measure(run, Backend::cpu, options);
  CHECK(m.first_check.passed);
  CHECK(m.final_check.passed);
  CHECK(m.samples.size() == 5);
  CHECK(run.computes == 1 + 2 + 5);
  CHECK(run.poisons == run.computes);
  CHECK(run.checks == 2);
  CHECK(m.kernel.count == 5);
  CHECK(m.kernel.min <= m.kernel.median);
  CHECK(m.kernel.median <= m.kernel.max);
  CHECK(m.total.median >= m.kernel.median);
}

TEST_CASE("measure does not time a run that computes the wrong answer", "[measure]") {
  FakeRun run;
  run.correct = false;
  const Measurement m = measure(run, Backend::cpu, RunOptions{});
  CHECK_FALSE(m.first_check.passed);
  CHECK(m.samples.empty());
  CHECK(run.computes == 1);
  CHECK_THAT(m.first_check.message, Contains("never written"));
}

TEST_CASE("measure stops between repetitions when cancelled", "[measure]") {
  FakeRun run;
  RunOptions options;
  options.reps = 100;
  int polls = 0;
  const Measurement m = measure(run, Backend::cpu, options, [&] { return ++polls > 3; });
  CHECK(m.cancelled);
  CHECK(m.samples.size() == 3);
}

namespace {
Result row(const char* variant, Backend backend, std::int64_t n, double kernel_ms, double total_ms) {
  Result r;
  r.lesson = "01";
  r.variant = variant;
  r.backend = backend;
  r.problem = {n, {{"n", n}}};
  r.kernel = Stats{kernel_ms, kernel_ms, kernel_ms, kernel_ms, 1};
  r.total = Stats{total_ms, total_ms, total_ms, total_ms, 1};
  if (backend != Backend::cpu) r.h2d = r.d2h = Stats{0.5, 0.5, 0.5, 0.5, 1};
  return r;
}
}  // namespace

TEST_CASE("a variant the emulator cannot run is skipped with what it needs", "[measure]") {
  const RunFactory make = not_emulated("cuBLAS");
  CHECK_THROWS_WITH(make(Instance{}, RunOptions{}), Contains("needs cuBLAS") && Contains("GPU only"));
}

TEST_CASE("crossover names the size from which the GPU wins, end to end and kernel alone", "[crossover]") {
  const std::vector<Result> results = {
      row("cpu_threads", Backend::cpu, 1000, 0.001, 0.001),   row("blocks", Backend::gpu, 1000, 0.005, 0.05),
      row("cpu_threads", Backend::cpu, 100000, 0.1, 0.1),     row("blocks", Backend::gpu, 100000, 0.01, 0.2),
      row("cpu_threads", Backend::cpu, 10000000, 10.0, 10.0), row("blocks", Backend::gpu, 10000000, 0.1, 5.0),
  };
  const auto lines = crossover_summary(results);
  REQUIRE(lines.size() == 2);
  CHECK_THAT(lines[0], Contains("End to end") && Contains("faster from n = 10000000"));
  CHECK_THAT(lines[1], Contains("Kernel alone") && Contains("faster from n = 100000"));

  const std::vector<Result> never = {row("cpu_threads", Backend::cpu, 1000, 0.001, 0.001),
                                     row("blocks", Backend::gpu, 1000, 0.005, 0.05)};
  CHECK_THAT(crossover_summary(never)[0], Contains("never overtakes"));
  CHECK(crossover_summary({row("cpu_loop", Backend::cpu, 10, 1, 1)}).empty());
}

TEST_CASE("results are written as a table, CSV and JSON with every field", "[results]") {
  Result cpu = row("cpu_loop", Backend::cpu, 1024, 0.002, 0.002);
  cpu.gbps = 6.1;
  cpu.h2d.reset();
  cpu.d2h.reset();
  Result gpu = row("blocks", Backend::gpu, 1024, 0.004, 0.03);
  gpu.block = 256;
  gpu.percent_of_peak = 12.5;
  gpu.status = Status::failed;
  gpu.message = "wrong, with a comma";

  const std::string table = format_table({cpu, gpu});
  CHECK_THAT(table, Contains("variant") && Contains("cpu_loop") && Contains("FAILED") && Contains("12.5 %"));

  const std::string csv = format_csv({cpu, gpu});
  CHECK(csv.rfind("lesson,variant,backend,timed_on,n,", 0) == 0);
  CHECK_THAT(csv, Contains("\"wrong, with a comma\""));
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 3);

  Report report;
  report.command = "lesson01_vector_add --n 1024";
  report.date = utc_now_iso8601();
  report.device.reason = "no CUDA device: test";
  report.seed = 7;
  report.results = {cpu, gpu};
  const auto j = nlohmann::json::parse(format_json(report));
  for (const char* key : {"gpulab_version", "commit", "date", "command", "device", "peaks", "results"}) {
    CAPTURE(key);
    CHECK(j.contains(key));
  }
  CHECK(j["device"].is_null());
  REQUIRE(j["results"].size() == 2);
  for (const char* key : {"lesson", "variant", "backend", "n", "kernel_ms", "h2d_ms", "d2h_ms", "total_ms", "gbps",
                          "gflops", "rel_error", "passed"}) {
    CAPTURE(key);
    CHECK(j["results"][0].contains(key));
  }
  CHECK(j["results"][0]["backend"] == "cpu");
  CHECK(j["results"][1]["timed_on"] == "gpu (CUDA events)");
  CHECK(j["results"][0]["h2d_ms"].is_null());
  CHECK(j["results"][1]["passed"] == false);
  CHECK(j["results"][1]["block"] == 256);
}

TEST_CASE("a file is written whole or not at all", "[results]") {
  const auto dir = std::filesystem::temp_directory_path() / "gpulab_atomic_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "out.json").string();
  write_file_atomically(path, "{}\n");
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  CHECK(text == "{}\n");
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
  CHECK_THROWS_WITH(write_file_atomically((dir / "missing" / "x.json").string(), "{}"), Contains("cannot write"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("times print in readable units", "[results]") {
  CHECK(format_ms(0.0000071) == "7 ns");
  CHECK(format_ms(0.0071) == "7.1 µs");
  CHECK(format_ms(1.234) == "1.23 ms");
  CHECK(format_ms(2500) == "2.5 s");
}

TEST_CASE("a size that cannot fit is refused with the bytes needed and available", "[memory]") {
  const Lesson& lesson = *find_lesson("01");
  CHECK_FALSE(memory_problem(lesson, 1000, true, false, 1e9, 1e9));
  const auto host = memory_problem(lesson, 1000000000, false, false, std::size_t{8} << 30, 0);
  REQUIRE(host);
  CHECK_THAT(*host, Contains("28.00 GB of host memory") && Contains("8.59 GB"));
  const auto device = memory_problem(lesson, 1000000000, true, false, std::size_t{64} << 30, std::size_t{4} << 30);
  REQUIRE(device);
  CHECK_THAT(*device, Contains("12.00 GB of GPU memory") && Contains("4.29 GB free"));
  // Emulated device memory is host memory.
  const auto emulated = memory_problem(lesson, 1000000000, false, true, std::size_t{32} << 30, 0);
  REQUIRE(emulated);
  CHECK_THAT(*emulated, Contains("40.00 GB of host memory") && Contains("emulated device memory"));
  CHECK(host_available_bytes() > 0);
}
