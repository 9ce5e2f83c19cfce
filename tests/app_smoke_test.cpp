// The app for real, under Xvfb: a CPU + emulated sweep rendered and saved as a PNG, and the
// messages it gives without a display or with bad input.
#include <stb/stb_image.h>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/results_reader.hpp"
#include "support/process.hpp"

using namespace gpulab;
using namespace gpulab::test;
using Catch::Matchers::Contains;

namespace {

std::string xvfb(const std::string& args) {
  return "xvfb-run -a -s '-screen 0 1600x1000x24' " + executable("gpulab") + " " + args;
}

struct Image {
  int width = 0, height = 0;
  std::size_t colours = 0;
};

Image inspect(const std::string& path) {
  Image image;
  int channels = 0;
  unsigned char* pixels = stbi_load(path.c_str(), &image.width, &image.height, &channels, 3);
  REQUIRE(pixels != nullptr);
  std::set<unsigned int> colours;
  for (std::size_t i = 0; i < static_cast<std::size_t>(image.width) * static_cast<std::size_t>(image.height); i += 7) {
    colours.insert(static_cast<unsigned int>(pixels[3 * i] << 16 | pixels[3 * i + 1] << 8 | pixels[3 * i + 2]));
  }
  stbi_image_free(pixels);
  image.colours = colours.size();
  return image;
}

}  // namespace

TEST_CASE("the app runs a CPU and emulated sweep of lesson 01 and saves a screenshot", "[app][xvfb]") {
  const std::string png = (std::filesystem::temp_directory_path() / "gpulab-smoke.png").string();
  std::filesystem::remove(png);
  const auto r = run_command(
      xvfb("--screenshot " + png + " --lesson 01 --sweep --backend cpu --backend emulated --width 1280 --height 800"),
      300);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("saved"));
  const Image image = inspect(png);
  CHECK(image.width == 1280);
  CHECK(image.height == 800);
  CHECK(image.colours > 200);  // text, plots and lines, not a blank or one-colour window
}

TEST_CASE("the app exports a run as CSV, JSON and PNG", "[app][xvfb]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "gpulab-export-test";
  fs::remove_all(dir);
  const std::string png = (fs::temp_directory_path() / "gpulab-export.png").string();
  const auto r =
      run_command(xvfb("--screenshot " + png + " --lesson 03 --run --n 100 --backend cpu --backend emulated " +
                       "--export " + dir.string()),
                  300);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("saved 6 results"));
  std::set<std::string> kinds;
  for (const auto& entry : fs::directory_iterator(dir)) {
    kinds.insert(entry.path().extension().string());
    if (entry.path().extension() == ".json") {
      const Report report = read_json_report(entry.path().string());
      CHECK(report.results.size() == 6);
    }
    if (entry.path().extension() == ".png") CHECK(inspect(entry.path().string()).colours > 200);
  }
  CHECK(kinds == std::set<std::string>{".csv", ".json", ".png"});
}

TEST_CASE("every view of every lesson renders", "[app][xvfb]") {
  for (const char* view : {"learn", "code", "run", "visualize", "exercise", "device"}) {
    for (const char* lesson : {"02", "03"}) {
      const std::string png = (std::filesystem::temp_directory_path() / "gpulab-view.png").string();
      const auto r =
          run_command(xvfb(std::string("--screenshot ") + png + " --lesson " + lesson + " --view " + view), 120);
      INFO(view << " " << lesson << ": " << r.output);
      REQUIRE(r.exit_code == 0);
      CHECK(inspect(png).colours > 20);
    }
  }
}

TEST_CASE("a corrupt results file is reported and the app goes on", "[app][xvfb]") {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string bad = (dir / "gpulab-bad.json").string();
  std::ofstream(bad) << "{\"results\": [ {\"lesson\": ";
  const std::string png = (dir / "gpulab-bad.png").string();
  const auto r = run_command(xvfb("--screenshot " + png + " --open " + bad + " --view device"), 120);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("gpulab-bad.json: not valid JSON"));
}

TEST_CASE("without a display the app says so and exits with 2", "[app]") {
  const auto r = run_command("env -u DISPLAY -u WAYLAND_DISPLAY " + executable("gpulab") + " --lesson 01", 60);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Contains("no display") && Contains("xvfb-run"));
}

TEST_CASE("the app refuses bad flags with exit code 2", "[app]") {
  for (const char* args : {"--frobnicate", "--view nowhere", "--n -5", "--backend tpu"}) {
    const auto r = run_command(executable("gpulab") + " " + args, 60);
    INFO(args << ": " << r.output);
    CHECK(r.exit_code == 2);
  }
}

TEST_CASE("the Exercise view grades the learner's kernel and shows the grade", "[app][xvfb]") {
  const std::string png = (std::filesystem::temp_directory_path() / "gpulab-grade.png").string();
  const auto r = run_command(xvfb("--screenshot " + png + " --lesson 01 --grade --hints 2 --backend emulated"), 300);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(inspect(png).colours > 20);
}
