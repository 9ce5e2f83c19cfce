// gpulab: the GPU Lab desktop app. One straight-line setup (GLFW, OpenGL 3.3, Dear ImGui), a loop
// of poll -> new frame -> UI -> render -> swap, shutdown in reverse. The panels live in ui/.
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <fmt/format.h>
#include <imgui.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "common/cli.hpp"
#include "common/results.hpp"
#include "core/settings.hpp"
#include "registry.hpp"
#include "ui/app_window.hpp"
#include "ui/fonts.hpp"
#include "ui/screenshot.hpp"

namespace {

std::string glfw_error;

void on_glfw_error(int code, const char* message) { glfw_error = fmt::format("{} (GLFW error {:#x})", message, code); }

struct Options {
  gpulab::app::AppOptions app;
  std::string screenshot;
  std::vector<std::string> backends;
  int width = 1500, height = 950;
  double timeout_s = 600;
  bool exported = false;
};

}  // namespace

int main(int argc, char** argv) try {
  using namespace gpulab;
  Options o;
  o.app.data_dir = GPULAB_SOURCE_DIR;
  if (const char* data = std::getenv("GPULAB_DATA")) o.app.data_dir = data;
  CLI::App cli{"GPU Lab: pick a lesson, read it, run its CPU and GPU variants and watch the timings plotted live."};
  cli.add_option("--lesson", o.app.lesson, "Lesson to open (01, 02, ...); default: the last one")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  cli.add_option("--view", o.app.view, "View to open")
      ->check(CLI::IsMember(app::AppWindow::view_keys()))
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  bool list_views = false;
  cli.add_flag("--list-views", list_views, "Print the views the --lesson offers, one per line, and exit");
  cli.add_flag("--run", o.app.run, "Start a run of the default size at once");
  cli.add_flag("--sweep", o.app.sweep, "Start a sweep over sizes at once");
  cli.add_option("--backend", o.backends,
                 "Backends to run (cpu, gpu, emulated); default: CPU and GPU, or CPU and emulated without a GPU")
      ->check(CLI::IsMember({"cpu", "gpu", "emulated"}));
  cli.add_option("--variant", o.app.variants,
                 "Variants to run (repeatable; default: all but the planted bugs and the exercise)");
  cli.add_option("--n", o.app.n, "Size of a run")->check(CLI::NonNegativeNumber);
  cli.add_option("--sweep-max", o.app.sweep_max, "Largest size of a sweep")->check(CLI::PositiveNumber);
  cli.add_flag("--grade", o.app.grade, "Grade the lesson's exercise at once (the Exercise view's button)");
  cli.add_option("--hints", o.app.hints, "Show this many of the exercise's hints at first")->check(CLI::Range(0, 9));
  cli.add_option("--tab", o.app.code_tab, "Code: the tab to open first (a file's name, or \"machine code\")");
  cli.add_flag("--colour-sectors", o.app.map_sectors,
               "Visualize: colour the thread map by the sectors each warp's requests touch (counted on the emulator)");
  cli.add_option("--open", o.app.open_results, "Results JSON file(s) to overlay")->check(CLI::ExistingFile);
  cli.add_option("--screenshot", o.screenshot,
                 "Render, wait for --run/--sweep to finish, save the window as this PNG and exit");
  cli.add_option("--width", o.width, "Window width in pixels")->check(CLI::Range(400, 8192));
  cli.add_option("--height", o.height, "Window height in pixels")->check(CLI::Range(300, 8192));
  cli.add_option("--export", o.app.export_dir,
                 "Folder the Export button saves into (default gpulab-export); with --screenshot, export there too");
  cli.add_option("--timeout", o.timeout_s, "With --screenshot: give up after this many seconds")
      ->check(CLI::PositiveNumber);
  cli.add_option("--data", o.app.data_dir, "The GPU Lab folder holding docs/, kernels/ and assets/")
      ->check(CLI::ExistingDirectory);
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = cli.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  for (const auto& b : o.backends) o.app.backends.push_back(*parse_backend(b));
  if (list_views) {
    const Lesson* lesson = find_lesson(o.app.lesson);
    if (lesson == nullptr) {
      std::fprintf(stderr, "gpulab: --list-views needs --lesson with one of the lessons (01, 02, ...)\n");
      return kExitUsage;
    }
    for (const std::string& view : app::AppWindow::view_keys(lesson)) std::printf("%s\n", view.c_str());
    return kExitOk;
  }
  const bool screenshot_mode = !o.screenshot.empty();

  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) {
    std::fprintf(stderr,
                 "gpulab: no display: %s\nThe app needs a graphical session (set DISPLAY, or run it under xvfb-run); "
                 "the lesson executables (lesson01_vector_add, ...) work without one.\n",
                 glfw_error.c_str());
    return kExitUsage;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
  GLFWwindow* window = glfwCreateWindow(o.width, o.height, "GPU Lab", nullptr, nullptr);
  if (window == nullptr) {
    std::fprintf(stderr, "gpulab: cannot open a window with OpenGL 3.3: %s\n", glfw_error.c_str());
    glfwTerminate();
    return kExitUsage;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(screenshot_mode ? 0 : 1);

  // Settings and layout are remembered, but never in screenshot mode (its pictures must not
  // depend on who ran it before).
  const auto folder = screenshot_mode ? std::nullopt : app::settings_folder();
  std::string ini_path, settings_path;
  app::LoadedSettings loaded;
  if (folder) {
    std::error_code ec;
    std::filesystem::create_directories(*folder, ec);
    ini_path = *folder + "/imgui.ini";
    settings_path = *folder + "/settings.json";
    loaded = app::load_settings(settings_path);
  }

  float scale_x = 1, scale_y = 1;
  glfwGetWindowContentScale(window, &scale_x, &scale_y);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = ini_path.empty() ? nullptr : ini_path.c_str();
  ImGui::StyleColorsDark();
  ImGuiStyle& style = ImGui::GetStyle();
  style.FrameRounding = 4;
  style.WindowRounding = 0;
  style.ScaleAllSizes(scale_x);
  const app::Fonts fonts = app::load_fonts(scale_x * loaded.settings.text_scale);
  ImGui_ImplGlfw_InitForOpenGL(window, true);
  ImGui_ImplOpenGL3_Init("#version 330");

  int exit_code = kExitOk;
  {
    app::AppWindow app(o.app, fonts, loaded);
    const auto started = std::chrono::steady_clock::now();
    while (!glfwWindowShouldClose(window)) {
      glfwWaitEventsTimeout(1.0 / 60);  // wakes for input, and redraws while runs report
      ImGui_ImplOpenGL3_NewFrame();
      ImGui_ImplGlfw_NewFrame();
      ImGui::NewFrame();
      app.frame();
      ImGui::Render();
      int width = 0, height = 0;
      glfwGetFramebufferSize(window, &width, &height);
      glViewport(0, 0, width, height);
      glClearColor(0.08f, 0.09f, 0.11f, 1.0f);
      glClear(GL_COLOR_BUFFER_BIT);
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      if (auto png = app.take_png_request()) {
        try {
          app::save_framebuffer_png(*png, width, height);
        } catch (const std::exception& e) {
          app.report(e.what());
        }
      }
      if (screenshot_mode && app.settled() && cli.count("--export") > 0 && !o.exported) {
        std::printf("gpulab: %s\n", app.export_results().c_str());  // its PNG is saved on the next frame
        o.exported = true;
      } else if (screenshot_mode && app.settled()) {
        app::save_framebuffer_png(o.screenshot, width, height);
        std::printf("gpulab: saved %s (%d x %d)\n", o.screenshot.c_str(), width, height);
        for (const auto& e : app.errors()) std::fprintf(stderr, "gpulab: %s\n", e.c_str());
        break;
      }
      if (screenshot_mode && std::chrono::steady_clock::now() - started > std::chrono::duration<double>(o.timeout_s)) {
        std::fprintf(stderr, "gpulab: the run did not finish within %.0f s; no screenshot saved\n", o.timeout_s);
        exit_code = kExitFailed;
        break;
      }
      glfwSwapBuffers(window);
    }
    if (!settings_path.empty()) {
      try {
        write_file_atomically(settings_path, app::format_settings(app.settings()));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "gpulab: could not save the settings: %s\n", e.what());
      }
    }
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(window);
  glfwTerminate();
  return exit_code;
} catch (const std::exception& e) {
  std::fprintf(stderr, "gpulab: error: %s\n", e.what());
  return 1;
}
