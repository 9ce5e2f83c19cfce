// The app's frame: the lesson list, the views of the selected lesson as tabs (each view in a file
// of its own: learn_view.cpp, code_view.cpp, run_view.cpp, visualize_view.cpp, exercise_view.cpp,
// device_view.cpp), the status bar; and what the views share: the lesson's state, runs, results.
#include "ui/app_window.hpp"

#include <GLFW/glfw3.h>
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>

#include "base/device_info.hpp"
#include "common/results_reader.hpp"
#include "core/code_tabs.hpp"
#include "registry.hpp"
#include "ui/plot.hpp"
#include "ui/training_view.hpp"
#include "ui/view_helpers.hpp"

namespace gpulab::app {

namespace {

// A lesson's sources as files: each folder gives its source files in name order, the first file
// stays first, and none comes twice.
std::vector<std::string> source_paths(const std::string& root, const std::vector<std::string>& sources) {
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  const auto add = [&](const std::string& p) {
    if (std::find(paths.begin(), paths.end(), p) == paths.end()) paths.push_back(p);
  };
  for (const std::string& entry : sources) {
    std::error_code ec;
    if (!fs::is_directory(fs::path(root) / entry, ec)) {
      add(entry);
      continue;
    }
    std::vector<std::string> files;
    for (const auto& f : fs::directory_iterator(fs::path(root) / entry, ec)) {
      const std::string ext = f.path().extension().string();
      if (ext == ".cu" || ext == ".cuh" || ext == ".cpp" || ext == ".hpp" || ext == ".inc") {
        files.push_back(entry + "/" + f.path().filename().string());
      }
    }
    std::sort(files.begin(), files.end());
    for (const std::string& f : files) add(f);
  }
  return paths;
}

}  // namespace

AppWindow::AppWindow(AppOptions options, Fonts fonts, LoadedSettings loaded)
    : options_(std::move(options)), fonts_(std::move(fonts)), settings_(loaded.settings) {
  if (!loaded.problem.empty()) errors_.push_back(loaded.problem);
  const DeviceInfo& device = device_info();
  gpu_usable_ = device.available;
  gpu_note_ = device.available ? "" : device.reason;
  if (gpu_usable_) peaks_ = std::async(std::launch::async, [] { return measured_peaks(); }).share();
  if (options_.view.empty() && (options_.run || options_.sweep)) options_.view = "run";
  if (options_.view.empty() && options_.grade) options_.view = "exercise";
  if (options_.view.empty()) options_.view = settings_.view;  // forced on the first frame only
  settings_.view = options_.view;
  const std::string wanted = options_.lesson.empty() ? settings_.lesson : options_.lesson;
  lesson_ = find_lesson(wanted);
  if (lesson_ == nullptr) {  // the course's first lesson
    lesson_ = all_lessons().front();
    if (!options_.lesson.empty()) errors_.push_back("no lesson " + wanted + "; showing lesson " + lesson_->id);
  }
  load_recorded();
#ifdef GPULAB_BUILT_KERNEL_CODE
  kernel_code_ = kernel_code_folder(options_.data_dir, GPULAB_BUILT_KERNEL_CODE);
#else
  kernel_code_ = kernel_code_folder(options_.data_dir, "");
#endif
  kernel_facts_ = load_kernel_facts(kernel_code_);
  profiles_ = load_profiles(options_.data_dir, errors_);
  select(lesson_);  // after the recorded files, which it may overlay
  for (const auto& path : options_.open_results) open_results_file(path);
  pending_start_ = options_.run || options_.sweep;
  export_dir_ = options_.export_dir;
  if (options_.grade) {
    if (const grading::Spec* e = grading::find_exercise(lesson_->id)) {
      grade_job_.start(*e, gpu_usable_ ? Backend::gpu : Backend::emulated);
    }
  }
}

Settings AppWindow::settings() const { return settings_; }

std::optional<std::string> AppWindow::take_png_request() {
  auto request = png_request_;
  png_request_.reset();
  return request;
}

bool AppWindow::settled() const {
  // Tab bars and fonts take a few frames to lay out; a thread map or timeline being recorded is
  // waited for.
  if (map_future_.valid() || timeline_future_.valid() || map_sectors_future_.valid() || memory_future_.valid() ||
      !training_view_.idle() || !image_training_view_.idle() || !steps_view_.idle() || grade_job_.busy())
    return false;
  if (!(options_.run || options_.sweep)) return frames_after_finish_ > 10;
  return finished_ && frames_after_finish_ > 10;
}

AppWindow::LessonState& AppWindow::state() {
  LessonState& s = states_[lesson_->id];
  if (!s.loaded) load(s);
  return s;
}

void AppWindow::load(LessonState& s) {
  const Lesson& l = *lesson_;
  s.loaded = true;
  s.n = options_.n.value_or(l.default_n);
  s.hints_shown = options_.hints;
  // Planted bugs and the learner's own kernel: when asked for (--variant chooses exactly).
  for (const Variant& v : l.variants) {
    s.variants[v.name] = options_.variants.empty() ? !v.deliberately_wrong && !v.exercise
                                                   : std::find(options_.variants.begin(), options_.variants.end(),
                                                               v.name) != options_.variants.end();
  }
  const auto& wanted = options_.backends;
  s.cpu = wanted.empty() || has(wanted, Backend::cpu);
  s.gpu = gpu_usable_ && (wanted.empty() || has(wanted, Backend::gpu));
  s.emulated = wanted.empty() ? !gpu_usable_ : has(wanted, Backend::emulated);
  // Emulated runs are CPU-slow: by default the sweep stops halfway (a click takes it further).
  s.sweep_max = l.sweep.empty() ? 0 : (s.emulated ? l.sweep.size() / 2 : l.sweep.size() - 1);
  if (options_.sweep_max) {
    for (std::size_t i = 0; i < l.sweep.size(); ++i) {
      if (l.sweep[i] <= *options_.sweep_max) s.sweep_max = i;
    }
  }
  s.text = load_markdown(options_.data_dir + "/" + l.text_file);
  s.sources.clear();
  for (const std::string& path : source_paths(options_.data_dir, l.sources)) {
    std::string error;
    std::string text = read_text(options_.data_dir + "/" + path, error);
    if (path.ends_with(".cu") || path.ends_with(".cuh")) {
      const std::string topic = kernel_topic(path);
      for (const std::string& name : kernels_in_source(text)) {
        const std::string k = topic.empty() ? name : topic + "::" + name;
        if (std::find(s.kernels.begin(), s.kernels.end(), k) == s.kernels.end()) s.kernels.push_back(k);
      }
    }
    s.sources.emplace_back(path, error.empty() ? std::move(text) : "// " + error);
  }
  s.source_tabs = code_tab_names(s.sources);
  if (!l.variants.empty() && l.thread_map) {
    s.map_variant = "";
    // Small enough to see every thread, large enough that the last block runs past the end.
    s.map_n = std::min<std::int64_t>(l.thread_map->max_n, 40);
    s.map_sectors = options_.map_sectors;
    for (const std::string& v : options_.variants) {  // --variant names a mapping the thread map offers
      if (std::find(l.thread_map->variants.begin(), l.thread_map->variants.end(), v) != l.thread_map->variants.end())
        s.map_variant = v;
    }
    s.map_block = l.thread_map->max_n < 1000 ? 256 : 16;
  }
}

void AppWindow::select(const Lesson* lesson) {
  lesson_ = lesson;
  settings_.lesson = lesson->id;
  state();
  // Recorded files of this lesson are overlaid where there is no GPU: sweeps (single-size files
  // would crowd the legend with one-point lines), and for a lesson with a ladder chart every file
  // of the GPU of its newest one — bars of several GPUs at one size would mix them in one ladder.
  // The others stay in the list, to tick.
  std::vector<std::size_t> candidates;
  std::size_t newest = recorded_.size();
  for (std::size_t i = 0; i < recorded_.size(); ++i) {
    const Report& report = recorded_[i].report;
    std::set<std::int64_t> sizes;
    for (const Result& x : report.results) {
      if (x.lesson == lesson->id) sizes.insert(x.problem.n);
    }
    if (sizes.empty() || recorded_[i].shown || gpu_usable_) continue;
    if (lesson->ladder_reference.empty() && sizes.size() <= 2) continue;
    candidates.push_back(i);
    if (newest == recorded_.size() || report.date > recorded_[newest].report.date) newest = i;
  }
  for (std::size_t i : candidates) {
    if (lesson->ladder_reference.empty() || recorded_[i].report.device.name == recorded_[newest].report.device.name)
      toggle_recorded(i, true);
  }
}

void AppWindow::load_recorded() {
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(options_.data_dir) / "assets" / "results";
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) read_recorded(path.string());
}

bool AppWindow::read_recorded(const std::string& path) {
  try {
    Report report = read_json_report(path);
    const std::string gpu = report.device.available ? report.device.name : "no GPU";
    recorded_.push_back(
        {path, fmt::format("{} ({})", std::filesystem::path(path).filename().string(), gpu), std::move(report)});
    return true;
  } catch (const std::exception& e) {
    errors_.push_back(e.what());
    status_ = e.what();
    return false;
  }
}

void AppWindow::toggle_recorded(std::size_t index, bool shown) {
  Recorded& r = recorded_[index];
  r.shown = shown;
  const std::string source = std::filesystem::path(r.path).stem().string();
  if (!shown) {
    series_.remove_source(source);
    return;
  }
  // The GPU rows: the learner's own CPU is the CPU side of the comparison.
  for (const Result& x : r.report.results) {
    if (x.backend == Backend::gpu) series_.add(x, source);
  }
}

void AppWindow::open_results_file(const std::string& path) {
  if (!read_recorded(path)) return;
  toggle_recorded(recorded_.size() - 1, true);
  status_ = "opened " + path;
}

std::string AppWindow::export_results() {
  namespace fs = std::filesystem;
  try {
    fs::create_directories(export_dir_);
    const auto results = series_.live_results();
    const std::string stem = fmt::format(
        "{}/lesson{}-{}", export_dir_, lesson_->id,
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
    write_file_atomically(stem + ".csv", format_csv(results));
    Report report;
    report.command = "gpulab (the app)";
    report.date = utc_now_iso8601();
    report.device = device_info();
    if (ready(peaks_)) report.peaks = peaks_.get();
    report.results = results;
    write_file_atomically(stem + ".json", format_json(report));
    png_request_ = stem + ".png";
    status_ = fmt::format("saved {} results to {}.csv, .json and .png", results.size(), stem);
  } catch (const std::exception& e) {
    status_ = std::string("export failed: ") + e.what();
    errors_.push_back(status_);
  }
  return status_;
}

void AppWindow::start(bool sweep) {
  LessonState& s = state();
  RunRequest request;
  request.lesson = lesson_;
  Selection& sel = request.selection;
  for (const Variant& v : lesson_->variants) {
    if (s.variants[v.name]) sel.variants.push_back(v.name);
  }
  if (s.cpu) sel.backends.push_back(Backend::cpu);
  if (s.gpu && gpu_usable_) sel.backends.push_back(Backend::gpu);
  if (s.emulated) sel.backends.push_back(Backend::emulated);
  if (sel.variants.empty() || sel.backends.empty()) {
    status_ = "pick at least one variant and one backend";
    return;
  }
  if (sweep) {
    for (std::size_t i = 0; i <= s.sweep_max && i < lesson_->sweep.size(); ++i) sel.sizes.push_back(lesson_->sweep[i]);
  } else {
    sel.sizes = {std::clamp<std::int64_t>(s.n, 0, lesson_->max_n)};
  }
  sel.options.block = s.block;
  sel.options.reps = s.reps;
  sel.options.warmup = 2;
  sel.options.seed = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  sel.emulated_reps = std::min(s.reps, 3);
  sel.emulated_warmup = 1;
  s.badges.clear();
  runner_.submit(std::move(request));
  started_ = true;
  finished_ = false;
  status_ = sweep ? "sweeping..." : "running...";
}

void AppWindow::poll_runner() {
  for (RunEvent& e : runner_.poll()) {
    switch (e.kind) {
      case RunEvent::Kind::result: {
        LessonState& s = states_[e.result.lesson];
        s.badges[badge_key(e.result)] =
            e.result.status == Status::passed ? "" : std::string(to_string(e.result.status)) + ": " + e.result.message;
        series_.add(e.result);
        break;
      }
      case RunEvent::Kind::note:
        notes_.push_back(e.text);
        break;
      case RunEvent::Kind::error:
        status_ = "the run stopped: " + e.text;
        errors_.push_back(status_);
        break;
      case RunEvent::Kind::gpu_disabled:
        gpu_usable_ = false;
        gpu_note_ = e.text;
        status_ = e.text;
        break;
      case RunEvent::Kind::finished:
        if (!runner_.busy()) {
          finished_ = true;
          frames_after_finish_ = 0;
        }
        if (status_ == "running..." || status_ == "sweeping...") status_ = e.cancelled ? "cancelled" : "done";
        break;
    }
  }
}

void AppWindow::handle_shortcuts() {
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput) return;
  // ImGui 1.86 knows keys by the backend's codes (GLFW's), but for a few named ones.
  const bool busy = runner_.busy();
  const bool ctrl_r = io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_R, false);
  if (!busy && (ImGui::IsKeyPressed(GLFW_KEY_F5, false) || (ctrl_r && !io.KeyShift))) start(false);
  if (!busy && (ImGui::IsKeyPressed(GLFW_KEY_F6, false) || (ctrl_r && io.KeyShift))) start(true);
  if (busy && ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) runner_.cancel();
}

void AppWindow::frame() {
  poll_runner();
  if (pending_start_) {
    pending_start_ = false;
    start(options_.sweep);
  }
  if (finished_) ++frames_after_finish_;
  if (!(options_.run || options_.sweep)) ++frames_after_finish_;
  // A picture a background job just finished is laid out over a few frames (tables fit their columns).
  if (map_future_.valid() || map_sectors_future_.valid() || memory_future_.valid()) frames_after_finish_ = 0;
  handle_shortcuts();

  const ImGuiViewport* viewport = ImGui::GetMainViewport();
  ImGui::SetNextWindowPos(viewport->WorkPos);
  ImGui::SetNextWindowSize(viewport->WorkSize);
  ImGui::Begin("GPU Lab", nullptr,
               ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                   ImGuiWindowFlags_NoBringToFrontOnFocus);
  const float status_height = ImGui::GetFrameHeightWithSpacing() + 4;
  ImGui::BeginChild("body", {0, ImGui::GetContentRegionAvail().y - status_height}, false,
                    ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  if (ImGui::BeginTable("layout", 2, ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableSetupColumn("lessons", ImGuiTableColumnFlags_WidthFixed, 290.0f * ImGui::GetFontSize() / 16.0f);
    ImGui::TableSetupColumn("main", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    draw_sidebar();
    ImGui::TableSetColumnIndex(1);
    ImGui::PushFont(fonts_.heading[1]);
    ImGui::Text("%s  %s", lesson_->id.c_str(), lesson_->title.c_str());
    ImGui::PopFont();
    if (ImGui::BeginTabBar("views")) {
      for (const View& view : kViews) {
        if (view.offered != nullptr && !view.offered(*lesson_)) continue;  // nothing of it in this lesson
        const bool wanted = options_.view == view.key;
        if (ImGui::BeginTabItem(view.title, nullptr, wanted ? ImGuiTabItemFlags_SetSelected : 0)) {
          settings_.view = view.key;
          ImGui::BeginChild("view", {0, 0}, false);
          (this->*view.draw)();
          ImGui::EndChild();
          ImGui::EndTabItem();
        }
      }
      options_.view.clear();  // only the first frame forces the view
      ImGui::EndTabBar();
    }
    ImGui::EndTable();
  }
  ImGui::EndChild();
  draw_status_bar();
  ImGui::End();
}

void AppWindow::draw_sidebar() {
  ImGui::PushFont(fonts_.heading[1]);
  ImGui::TextUnformatted("GPU Lab");
  ImGui::PopFont();
  ImGui::TextDisabled("CUDA, one idea at a time");
  ImGui::Separator();
  std::string part;
  for (const Lesson* l : all_lessons()) {
    if (l->part != part) {  // the course's parts, each under its title
      part = l->part;
      ImGui::Spacing();
      ImGui::TextColored({0.55f, 0.75f, 1.0f, 1.0f}, "%s", part.c_str());
    }
    const bool selected = l == lesson_;
    const std::string label = l->id + "  " + l->title;
    if (ImGui::Selectable(label.c_str(), selected)) select(l);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", l->summary.c_str());
    if (selected) {
      ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetColorU32(ImGuiCol_TextDisabled));
      ImGui::Indent(12);
      ImGui::TextWrapped("%s", l->summary.c_str());
      ImGui::Unindent(12);
      ImGui::PopStyleColor();
    }
  }
  ImGui::Separator();
  const DeviceInfo& d = device_info();
  if (gpu_usable_) {
    ImGui::TextWrapped("GPU: %s", d.name.c_str());
  } else {
    ImGui::TextColored({1, 0.75f, 0.3f, 1}, "No GPU in use");
    ImGui::TextWrapped("GPU rows come from the emulator (CPU times) or from recorded results.");
  }
}

void AppWindow::draw_status_bar() {
  ImGui::Separator();
  if (runner_.busy()) {
    ImGui::Text("%s %zu of %zu measurements", status_.c_str(), runner_.done(), runner_.expected());
  } else if (!status_.empty()) {
    ImGui::TextUnformatted(status_.c_str());
  } else if (!errors_.empty()) {
    ImGui::TextColored({1, 0.75f, 0.3f, 1}, "%s (Device view: all messages)", errors_.back().c_str());
  } else {
    ImGui::TextDisabled("F5 run · F6 sweep · Esc cancel");
  }
  if (!notes_.empty()) {
    ImGui::SameLine();
    ImGui::TextDisabled("· %s", notes_.back().c_str());
  }
}

// The views, in the order of their tabs. A view that a lesson has nothing for (no picture to
// watch, no exercise) is left out of its tabs.
const AppWindow::View AppWindow::kViews[7] = {
    {"learn", "Learn", &AppWindow::draw_learn, nullptr},
    {"code", "Code", &AppWindow::draw_code, nullptr},
    {"run", "Run", &AppWindow::draw_run, nullptr},
    {"visualize", "Visualize", &AppWindow::draw_visualize, has_visualization},
    {"memory", "Memory", &AppWindow::draw_memory, has_memory_counts},
    {"exercise", "Exercise", &AppWindow::draw_exercise, has_exercise},
    {"device", "Device", &AppWindow::draw_device, nullptr},
};

std::vector<std::string> AppWindow::view_keys(const Lesson* lesson) {
  std::vector<std::string> keys;
  for (const View& view : kViews) {
    if (lesson == nullptr || view.offered == nullptr || view.offered(*lesson)) keys.emplace_back(view.key);
  }
  return keys;
}

bool has_visualization(const Lesson& l) {
  return (l.training && (l.training->live_network || l.training->live_images)) ||
         (l.timeline && !l.timeline->variants.empty()) || l.thread_map || l.steps;
}
bool has_exercise(const Lesson& l) { return !grading::exercises_of_lesson(l.id).empty(); }

}  // namespace gpulab::app
