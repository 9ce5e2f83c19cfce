// The app's parts that need no OpenGL: log axes, the series model, the runner queue, markdown,
// results files (good and bad) and settings.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "common/results_reader.hpp"
#include "core/code_tabs.hpp"
#include "core/grade_job.hpp"
#include "core/kernel_facts.hpp"
#include "core/log_axis.hpp"
#include "core/markdown.hpp"
#include "core/runner.hpp"
#include "core/series.hpp"
#include "core/settings.hpp"
#include "registry.hpp"

using namespace gpulab;
using namespace gpulab::app;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;

namespace {

Result result(const std::string& variant, Backend backend, std::int64_t n, double ms, Status status = Status::passed) {
  Result r;
  r.lesson = "01";
  r.variant = variant;
  r.backend = backend;
  r.problem.n = n;
  r.status = status;
  Stats s;
  s.median = s.mean = ms;
  s.min = ms * 0.9;
  s.max = ms * 1.2;
  s.count = 10;
  r.kernel = s;
  Stats t = s;
  t.median = t.min = t.max = ms * 4;
  if (backend != Backend::cpu) r.total = t;
  r.gbps = 12.0 * static_cast<double>(n) / (ms * 1e6);
  return r;
}

// Waits (a bounded time) until the runner has finished `count` requests, collecting events.
std::vector<RunEvent> drain(Runner& runner, int count) {
  std::vector<RunEvent> events;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int finished = 0;
  while (finished < count && std::chrono::steady_clock::now() < deadline) {
    for (auto& e : runner.poll()) {
      finished += e.kind == RunEvent::Kind::finished;
      events.push_back(std::move(e));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  REQUIRE(finished == count);
  return events;
}

}  // namespace

TEST_CASE("the Code view names each file's tab apart: a shared name gets its folder (three exercise.cu)", "[app]") {
  const std::vector<std::pair<std::string, std::string>> sources = {
      {"kernels/matmul/matmul.cu", ""},
      {"lessons/05_matmul/exercises/05_matmul/exercise.cu", ""},
      {"lessons/05_matmul/exercises/05_matvec/exercise.cu", ""}};
  CHECK(app::code_tab_names(sources) ==
        std::vector<std::string>{"matmul.cu", "05_matmul/exercise.cu", "05_matvec/exercise.cu"});
}

TEST_CASE("a log axis rounds out to whole decades and labels them in readable units", "[app]") {
  const LogAxis axis = LogAxis::fit(0.003, 7, Unit::milliseconds);
  CHECK_THAT(axis.lo(), WithinRel(1e-3));
  CHECK_THAT(axis.hi(), WithinRel(10.0));
  std::vector<std::string> labels;
  for (const Tick& t : axis.ticks()) {
    if (!t.label.empty()) labels.push_back(t.label);
  }
  CHECK(labels == std::vector<std::string>{"1 µs", "10 µs", "100 µs", "1 ms", "10 ms"});
  CHECK(axis.position(1e-3) == 0.0);
  CHECK_THAT(axis.position(10), WithinRel(1.0));
  CHECK_THAT(axis.position(0.1), WithinRel(0.5));
  CHECK(axis.position(-1) == 0.0);
  CHECK_THAT(axis.value_at(0.25), WithinRel(0.01));
}

TEST_CASE("a log axis with many decades labels only as many as fit", "[app]") {
  const LogAxis axis = LogAxis::fit(1e-6, 1e6, Unit::ratio);
  int labelled = 0;
  for (const Tick& t : axis.ticks(4)) labelled += !t.label.empty();
  CHECK(labelled <= 4);
  CHECK(labelled >= 3);
  // A few decades also get unlabelled minor ticks at 2 and 5.
  const auto ticks = LogAxis::fit(2, 50, Unit::count).ticks();
  CHECK(std::count_if(ticks.begin(), ticks.end(), [](const Tick& t) { return !t.major; }) == 4);
}

TEST_CASE("an axis without positive data still has a range", "[app]") {
  const LogAxis axis = LogAxis::fit(0, 0, Unit::gbps);
  CHECK(axis.lo() > 0);
  CHECK(axis.hi() > axis.lo());
}

TEST_CASE("values are labelled in the units a learner reads", "[app]") {
  using Row = std::tuple<double, Unit, std::string>;
  const auto [value, unit, text] = GENERATE(table<double, Unit, std::string>({
      Row{0.0071, Unit::milliseconds, "7.1 µs"},
      Row{1e-5, Unit::milliseconds, "10 ns"},
      Row{250, Unit::milliseconds, "250 ms"},
      Row{2500, Unit::milliseconds, "2.5 s"},
      Row{1024, Unit::count, "1.02K"},
      Row{268435456, Unit::count, "268M"},
      Row{4219, Unit::gbps, "4.22 TB/s"},
      Row{0.5, Unit::gbps, "500 MB/s"},
      Row{50800, Unit::gflops, "50.8 TFLOP/s"},
      Row{1e-5, Unit::ratio, "0.00001×"},
      Row{24, Unit::ratio, "24×"},
  }));
  CAPTURE(value);
  CHECK(format_value(value, unit) == text);
}

TEST_CASE("the ladder puts every series' GFLOP/s at the size most of them share, slowest first", "[app]") {
  SeriesSet set;
  auto with_gflops = [](Result r, double gflops) {
    r.gflops = gflops;
    return r;
  };
  set.add(with_gflops(result("naive", Backend::gpu, 1024, 4.0), 500));
  set.add(with_gflops(result("tiled", Backend::gpu, 1024, 1.0), 9000));
  set.add(with_gflops(result("tiled", Backend::gpu, 4096, 1.0), 20000));
  set.add(with_gflops(result("cublas", Backend::gpu, 4096, 1.0), 50000), "lesson05-h100");
  set.add(with_gflops(result("cublas", Backend::gpu, 8192, 1.0), 51000), "lesson05-h100");  // alone at 8192
  set.add(with_gflops(result("naive", Backend::gpu, 4096, 1.0, Status::failed), 400));      // failed: no bar
  const Ladder ladder = set.ladder("01");
  CHECK(ladder.n == 4096);
  REQUIRE(ladder.bars.size() == 2);
  CHECK(ladder.bars[0].variant == "tiled");
  CHECK(ladder.bars[1].variant == "cublas");
  CHECK(ladder.bars[1].label == "cublas (gpu, recorded)");
  set.set_visible(2, false);  // hide cublas: no size has two series any more but 1024
  CHECK(set.ladder("01").n == 1024);
  CHECK(set.ladder("02").bars.empty());
}

TEST_CASE("a memory-bound lesson's ladder is in GB/s: a histogram has no FLOPs to rank", "[app]") {
  SeriesSet set;
  auto with_gbps = [](Result r, double gbps) {
    r.gbps = gbps, r.gflops = 0;
    return r;
  };
  set.add(with_gbps(result("shared_privatized", Backend::gpu, 1 << 28, 0.4), 660));
  set.add(with_gbps(result("warp_copies", Backend::gpu, 1 << 28, 0.15), 1800));
  CHECK(set.ladder("01").bars.empty());  // in GFLOP/s: nothing
  const Ladder ladder = set.ladder("01", RateKind::gbps);
  REQUIRE(ladder.bars.size() == 2);
  CHECK(ladder.bars[0].variant == "shared_privatized");
  CHECK(ladder.bars[1].value == 1800);
}

TEST_CASE("series group results by variant, backend and source, and keep one point per size", "[app]") {
  SeriesSet set;
  set.add(result("cpu_loop", Backend::cpu, 1024, 1.0));
  set.add(result("blocks", Backend::gpu, 1024, 0.5));
  set.add(result("blocks", Backend::gpu, 4096, 0.6));
  set.add(result("blocks", Backend::gpu, 1024, 0.25));  // a rerun replaces the earlier point
  set.add(result("blocks", Backend::gpu, 1024, 0.3), "lesson01-h200-sweep");
  REQUIRE(set.series().size() == 3);
  CHECK(set.series()[1].points.size() == 2);
  CHECK(set.series()[1].points[0].kernel->median == 0.25);
  CHECK(set.series()[2].label == "blocks (gpu, recorded: lesson01-h200-sweep)");
  CHECK(set.has_recorded());
  CHECK(set.live_results().size() == 4);

  const auto times = set.times("01", TimeKind::kernel);
  REQUIRE(times.size() == 3);
  CHECK(times[1].points.size() == 2);
  CHECK(times[1].points[0].lo == Approx(0.225));
  CHECK(times[2].recorded);
  // Speedup over the best CPU time at the same size; sizes without a CPU point are left out.
  const auto speedups = set.speedups("01", TimeKind::kernel);
  REQUIRE(speedups.size() == 3);
  CHECK(speedups[0].points[0].y == Approx(1.0));
  REQUIRE(speedups[1].points.size() == 1);
  CHECK(speedups[1].points[0].y == Approx(4.0));
  // End to end, the copies count: the GPU's total is 4x its kernel time here.
  CHECK(set.speedups("01", TimeKind::end_to_end)[1].points[0].y == Approx(1.0));

  set.set_visible(0, false);
  CHECK(set.times("01", TimeKind::kernel).size() == 2);
  CHECK(set.times("02", TimeKind::kernel).empty());
  set.remove_source("lesson01-h200-sweep");
  CHECK_FALSE(set.has_recorded());
  set.clear_live();
  CHECK(set.series().empty());
  CHECK(set.live_results().empty());
}

TEST_CASE("failed and skipped points are kept for the table but never plotted", "[app]") {
  SeriesSet set;
  set.add(result("blocks", Backend::gpu, 1024, 0.5, Status::failed));
  set.add(result("blocks", Backend::gpu, 2048, 0.5, Status::skipped));
  CHECK(set.live_results().size() == 2);
  CHECK(set.times("01", TimeKind::kernel).empty());
  CHECK(set.rates("01", RateKind::gbps).empty());
}

TEST_CASE("the runner publishes requests' results in order, one request after another", "[app]") {
  std::atomic<int> concurrent{0}, most{0};
  Runner runner([&](const RunRequest& request, const RunCallbacks& callbacks) {
    most = std::max(most.load(), ++concurrent);
    for (const std::int64_t n : request.selection.sizes) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      callbacks.on_result(result("v", Backend::cpu, n, 1));
    }
    --concurrent;
  });
  for (const std::int64_t first : {1, 100}) {
    RunRequest request;
    request.selection.sizes = {first, first + 1, first + 2};
    runner.submit(request);
  }
  const auto events = drain(runner, 2);
  std::vector<std::int64_t> sizes;
  for (const auto& e : events) {
    if (e.kind == RunEvent::Kind::result) sizes.push_back(e.result.problem.n);
  }
  CHECK(sizes == std::vector<std::int64_t>{1, 2, 3, 100, 101, 102});
  CHECK(most == 1);
  CHECK(events.back().kind == RunEvent::Kind::finished);
  CHECK_FALSE(runner.busy());
}

TEST_CASE("cancel stops the current request after its current measurement and drops the queued ones", "[app]") {
  std::atomic<int> measured{0};
  Runner runner([&](const RunRequest&, const RunCallbacks& callbacks) {
    for (int i = 0; i < 100000 && !callbacks.cancelled(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      ++measured;
      callbacks.on_result(result("v", Backend::cpu, i, 1));
    }
  });
  runner.submit({});
  runner.submit({});  // queued behind the first: dropped by cancel
  while (measured < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  runner.cancel();
  const auto events = drain(runner, 1);
  CHECK(events.back().cancelled);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(runner.busy());
  CHECK(measured < 1000);
}

TEST_CASE("a request that throws becomes an error event, and the runner goes on", "[app]") {
  int calls = 0;
  Runner runner([&](const RunRequest&, const RunCallbacks& callbacks) {
    if (++calls == 1) throw std::runtime_error("out of memory: cudaMalloc of 80 GB");
    callbacks.on_result(result("v", Backend::cpu, 1, 1));
  });
  runner.submit({});
  runner.submit({});
  const auto events = drain(runner, 2);
  REQUIRE(events.size() == 4);
  CHECK(events[0].kind == RunEvent::Kind::error);
  CHECK_THAT(events[0].text, Contains("out of memory"));
  CHECK(events[1].kind == RunEvent::Kind::finished);
  CHECK(events[2].kind == RunEvent::Kind::result);
}

TEST_CASE("the runner runs a real lesson through the shared harness", "[app]") {
  Runner runner;
  RunRequest request;
  request.lesson = find_lesson("01");
  request.selection.sizes = {31, 1000};
  request.selection.variants = {"cpu_loop", "blocks"};
  request.selection.backends = {Backend::cpu, Backend::emulated};
  request.selection.options.reps = 2;
  CHECK(expected_measurements(request) == 4);  // cpu_loop on the CPU, blocks emulated; two sizes
  runner.submit(request);
  const auto events = drain(runner, 1);
  int passed = 0;
  for (const auto& e : events) passed += e.kind == RunEvent::Kind::result && e.result.status == Status::passed;
  CHECK(passed == 4);
}

TEST_CASE("markdown becomes headings, styled runs, lists, tables and code blocks", "[app]") {
  const auto blocks = parse_markdown(
      "# Title\n\nSome *italic*, **bold** and `code`.\n\n1. one\n2. two\n   - nested\n\n"
      "| a | b |\n|---|---|\n| 1 | `x` |\n\n```cuda\n__global__ void k();\n```\n\n---\n\n"
      "<!-- snippet: kernels/x.cu name -->\n");
  using Kind = MarkdownBlock::Kind;
  REQUIRE(blocks.size() == 8);
  CHECK(blocks[0].kind == Kind::heading);
  CHECK(blocks[0].level == 1);
  CHECK(blocks[0].runs[0].text == "Title");
  const auto& runs = blocks[1].runs;
  REQUIRE(runs.size() == 7);
  CHECK((runs[1].text == "italic" && runs[1].emphasis));
  CHECK((runs[3].text == "bold" && runs[3].strong));
  CHECK((runs[5].text == "code" && runs[5].code));
  CHECK((blocks[2].kind == Kind::list_item && blocks[2].bullet == "1." && blocks[2].runs[0].text == "one"));
  CHECK(blocks[3].bullet == "2.");
  CHECK((blocks[4].bullet == "•" && blocks[4].level == 2));
  CHECK(blocks[5].kind == Kind::table);
  CHECK(blocks[5].rows == std::vector<std::vector<std::string>>{{"a", "b"}, {"1", "x"}});
  CHECK((blocks[6].kind == Kind::code && blocks[6].language == "cuda" && blocks[6].code == "__global__ void k();"));
  CHECK(blocks[7].kind == Kind::rule);  // the HTML comment is not drawn
}

TEST_CASE("every lesson's text parses, and a missing one says so", "[app]") {
  for (const Lesson* l : all_lessons()) {
    CAPTURE(l->text_file);
    const auto blocks = load_markdown(std::string(GPULAB_SOURCE_DIR) + "/" + l->text_file);
    CHECK(blocks.size() > 10);
    CHECK(blocks[0].kind == MarkdownBlock::Kind::heading);
  }
  const auto missing = load_markdown("/nonexistent/lesson.md");
  REQUIRE(missing.size() == 1);
  CHECK_THAT(missing[0].runs[0].text, Contains("could not be opened"));
}

TEST_CASE("a results file reads back what format_json wrote", "[app]") {
  Report report;
  report.command = "lesson01_vector_add --sweep";
  report.date = "2026-11-22T00:00:00Z";
  report.results = {result("blocks", Backend::gpu, 1024, 0.5),
                    result("cpu_loop", Backend::cpu, 1024, 1.0, Status::failed)};
  report.results[0].problem.dims = {{"n", 1024}};
  const Report back = parse_json_report(format_json(report));
  CHECK(back.command == report.command);
  REQUIRE(back.results.size() == 2);
  CHECK(back.results[0].variant == "blocks");
  CHECK(back.results[0].backend == Backend::gpu);
  CHECK(back.results[0].kernel->median == 0.5);
  CHECK(back.results[0].kernel->max == Approx(0.6));
  CHECK(back.results[0].total->median == 2.0);
  CHECK(back.results[1].status == Status::failed);
  CHECK_FALSE(back.results[1].total);
}

TEST_CASE("every recorded results file in assets/ reads", "[app]") {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(GPULAB_SOURCE_DIR) + "/assets/results")) {
    if (entry.path().extension() != ".json") continue;
    CAPTURE(entry.path().string());
    const Report r = read_json_report(entry.path().string());
    CHECK((r.device.available || !r.device.reason.empty()));  // a CPU-only run says why
    CHECK_FALSE(r.results.empty());
    ++files;
  }
  CHECK(files >= 5);
}

TEST_CASE("a bad results file gives a message naming what is wrong", "[app]") {
  using Row = std::tuple<std::string, std::string>;
  const auto [text, message] = GENERATE(table<std::string, std::string>({
      Row{"", "not valid JSON"},
      Row{"{\"results\": [", "not valid JSON"},
      Row{"[1, 2]", "no 'results' list"},
      Row{"{\"results\": 3}", "'results' is not a list"},
      Row{"{\"results\": [{\"lesson\": \"01\"}]}", "results[0]: no field 'variant'"},
      Row{R"({"results": [{"lesson": "01", "variant": "v", "backend": "tpu", "n": 1}]})", "'tpu' is not a backend"},
      Row{R"({"results": [{"lesson": "01", "variant": "v", "backend": "gpu", "n": -5}]})", "negative size"},
      Row{R"({"results": [{"lesson": 1, "variant": "v", "backend": "gpu", "n": 5}]})", "results[0].lesson"},
  }));
  CAPTURE(text);
  CHECK_THROWS_WITH(parse_json_report(text), Contains(message));
  CHECK_THROWS_WITH(read_json_report("/nonexistent.json"), Contains("/nonexistent.json: cannot open"));
}

TEST_CASE("settings round-trip, and a corrupt file gives the defaults and a message", "[app]") {
  Settings s;
  s.lesson = "03";
  s.view = "visualize";
  s.text_scale = 1.25f;
  const LoadedSettings back = parse_settings(format_settings(s));
  CHECK(back.problem.empty());
  CHECK(back.settings.lesson == "03");
  CHECK(back.settings.view == "visualize");
  CHECK(back.settings.text_scale == 1.25f);

  const LoadedSettings corrupt = parse_settings("{\"lesson\": ");
  CHECK_THAT(corrupt.problem, Contains("not a JSON object"));
  CHECK(corrupt.settings.lesson.empty());                                      // the course's first lesson
  CHECK(parse_settings(R"({"text_scale": 40})").settings.text_scale == 1.0f);  // out of range: ignored
  CHECK(load_settings("/nonexistent/settings.json").problem.empty());          // the first start
}

TEST_CASE("an exercise's hints are numbered until the next heading of their level", "[app]") {
  const auto blocks = app::parse_markdown(
      "## Exercise\n\nText.\n\n### Hint 1\n\nA nudge.\n\n### Hint 2\n\nMore.\n\n```\ncode\n```\n\n## After\n\nNo "
      "hint.\n");
  const std::vector<int> numbers = app::hint_numbers(blocks);
  REQUIRE(numbers.size() == blocks.size());
  CHECK(numbers == std::vector<int>{0, 0, 1, 1, 2, 2, 2, 0, 0});
  const auto section = app::exercise_section(blocks);
  REQUIRE(section.size() == 7);
  CHECK(section.front().runs.front().text == "Exercise");
  CHECK(app::exercise_section(app::parse_markdown("# Title\n\nNo exercise.\n")).empty());
}

TEST_CASE("every exercise has hints, its own or in its lesson's text, numbered from 1", "[app]") {
  for (const auto& exercise : grading::all_exercises()) {
    const Lesson* lesson = find_lesson(exercise.lesson);
    REQUIRE(lesson != nullptr);
    CAPTURE(exercise.name);
    CHECK(std::filesystem::exists(exercise.learner_file()));
    if (exercise.hints.size() >= 3) continue;
    const auto numbers =
        app::hint_numbers(app::load_markdown(std::string(GPULAB_SOURCE_DIR) + "/" + lesson->text_file));
    CHECK(std::count(numbers.begin(), numbers.end(), 1) > 0);
    CHECK(std::count(numbers.begin(), numbers.end(), 3) > 0);
  }
}

TEST_CASE("the Grade button's job grades on its own thread and hands over every case", "[app]") {
  app::GradeJob job;
  job.start(*grading::find_exercise("01"), Backend::emulated);
  for (int i = 0; i < 600 && job.busy(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  REQUIRE_FALSE(job.busy());
  const auto grade = job.result();
  REQUIRE(grade);
  CHECK(grade->exercise == "01_vector_add");
  CHECK(grade->cases.size() == job.progress().size());
  CHECK(grade->cases.size() >= 6);
  // Whether it passed depends on the learner's file; either way each size says so.
  for (const auto& c : grade->cases) CHECK(c.passed == c.message.empty());
}

TEST_CASE("kernel facts are read from the recorded file; occupancy says what limits it", "[app]") {
  const auto facts = app::load_kernel_facts(app::kernel_code_folder(GPULAB_SOURCE_DIR, ""));
  REQUIRE(facts.count("matmul::warp_tiled_kernel") == 1);
  CHECK(facts.at("matmul::warp_tiled_kernel").registers > 128);
  CHECK(facts.at("matmul::warp_tiled_kernel").arch == "sm_90");
  // Two folders' kernels of one name, each its own (lessons 02 and 03's thread maps).
  const std::string root = app::kernel_code_folder(GPULAB_SOURCE_DIR, "");
  REQUIRE(facts.count("thread_hierarchy::record") == 1);
  REQUIRE(facts.count("matrix_add::record") == 1);
  CHECK(app::recorded_kernel_code(root, "matrix_add::record", false) !=
        app::recorded_kernel_code(root, "thread_hierarchy::record", false));
  CHECK(app::kernel_topic("kernels/matmul/naive.cu") == "matmul");
  CHECK(app::kernel_topic("lessons/05_matmul/matmul_lesson.cpp").empty());
  CHECK(app::qualified_kernel({"matmul::naive_kernel", "matmul::warp_tiled_kernel"}, "warp_tiled_kernel") ==
        "matmul::warp_tiled_kernel");
  CHECK(app::kernels_in_source("__global__ void a(int* x) {}\n__global__ __launch_bounds__(256) void b() {}") ==
        std::vector<std::string>{"a", "b"});
  // Launch bounds after `void`, as lesson 05's register rungs write them, and with parentheses inside.
  CHECK(app::kernels_in_source("__global__ void __launch_bounds__(kThreads)\n    c(float* x) {}\n"
                               "__global__ void __launch_bounds__((kTile * kTile) / 4, 1) d() {}") ==
        std::vector<std::string>{"c", "d"});
  // 256 threads of 215 registers: 216 × 32 = 6912 a warp, 9 warps an SM: one block of 8 warps.
  const app::Occupancy heavy = app::theoretical_occupancy(256, 215, 24832);
  CHECK(heavy.blocks_per_sm == 1);
  CHECK(heavy.limiter == "registers");
  CHECK(heavy.fraction == Approx(8.0 / 64));
  // Few registers, no shared memory: the threads limit (8 blocks of 8 warps).
  const app::Occupancy light = app::theoretical_occupancy(256, 16, 0);
  CHECK(light.blocks_per_sm == 8);
  CHECK(light.fraction == Approx(1.0));
  // 100 KB of shared memory a block: two fit in 228 KB.
  CHECK(app::theoretical_occupancy(128, 16, 100 * 1024).limiter == "shared memory");
  CHECK(app::theoretical_occupancy(128, 16, 100 * 1024).blocks_per_sm == 2);
}
