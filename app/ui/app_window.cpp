// The app's frame: layout, and the Learn, Code, Run, Visualize and Device views.
#include "ui/app_window.hpp"

#include <GLFW/glfw3.h>
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>

#include "common/device_info.hpp"
#include "common/results_reader.hpp"
#include "common/text_file.hpp"
#include "emulator/checker.hpp"
#include "registry.hpp"
#include "ui/markdown_view.hpp"
#include "ui/plot.hpp"
#include "ui/thread_map_view.hpp"
#include "ui/timeline_view.hpp"
#include "ui/training_view.hpp"

namespace gpulab::app {

namespace {

const char* const kViews[] = {"learn", "code", "run", "visualize", "exercise", "device"};
const char* const kViewTitles[] = {"Learn", "Code", "Run", "Visualize", "Exercise", "Device"};

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

std::string read_text(const std::string& path, std::string& error) {
  std::optional<std::string> text = read_text_file(path);
  if (!text) error = "cannot open " + path;
  return text.value_or("");
}

// Whether a background job has finished (its result or its exception is waiting).
template <typename Future>
bool ready(const Future& f) {
  return f.valid() && f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

bool has(const std::vector<Backend>& backends, Backend b) {
  return std::find(backends.begin(), backends.end(), b) != backends.end();
}

std::string badge_key(const Result& r) { return r.variant + " (" + std::string(to_string(r.backend)) + ")"; }

// Whether a lesson's work is arithmetic (GFLOP/s) rather than memory traffic (GB/s).
bool compute_bound(const Lesson& lesson) {
  return gpulab::compute_bound(lesson.counts(lesson.problem(lesson.default_n)));
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
  if (lesson_ == nullptr) {
    if (!options_.lesson.empty()) errors_.push_back("no lesson " + wanted + "; showing lesson 01");
    lesson_ = all_lessons().front();
  }
  load_recorded();
  select(lesson_);  // after the recorded files, which it may overlay
  for (const auto& path : options_.open_results) open_results_file(path);
  pending_start_ = options_.run || options_.sweep;
  export_dir_ = options_.export_dir;
  if (options_.grade) {
    if (const grading::Exercise* e = grading::find_exercise(lesson_->id)) {
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
  if (map_future_.valid() || timeline_future_.valid() || !training_view_.idle() || grade_job_.busy()) return false;
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
    s.sources.emplace_back(path, error.empty() ? std::move(text) : "// " + error);
  }
  if (!l.variants.empty() && l.thread_map) {
    s.map_variant = "";
    // Small enough to see every thread, large enough that the last block runs past the end.
    s.map_n = std::min<std::int64_t>(l.thread_map_max_n, 40);
    s.map_block = l.thread_map_max_n < 1000 ? 256 : 16;
  }
}

void AppWindow::select(const Lesson* lesson) {
  lesson_ = lesson;
  settings_.lesson = lesson->id;
  state();
  for (auto& r : recorded_) {  // recorded files of this lesson are overlaid where there is no GPU
    const bool mine = std::any_of(r.report.results.begin(), r.report.results.end(),
                                  [&](const Result& x) { return x.lesson == lesson->id; });
    // Sweeps only, where single-size files would crowd the legend with one-point lines; a lesson
    // with a ladder chart shows those too (they are its bars).
    std::set<std::int64_t> sizes;
    for (const Result& x : r.report.results) {
      if (x.lesson == lesson->id) sizes.insert(x.problem.n);
    }
    if (mine && (sizes.size() > 2 || !lesson->ladder_reference.empty()) && !r.shown && !gpu_usable_)
      toggle_recorded(static_cast<std::size_t>(&r - recorded_.data()), true);
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
      for (std::size_t i = 0; i < std::size(kViews); ++i) {
        const bool wanted = options_.view == kViews[i];
        const ImGuiTabItemFlags flags = wanted ? ImGuiTabItemFlags_SetSelected : 0;
        if (ImGui::BeginTabItem(kViewTitles[i], nullptr, flags)) {
          settings_.view = kViews[i];
          ImGui::BeginChild("view", {0, 0}, false);
          switch (i) {
            case 0:
              draw_learn();
              break;
            case 1:
              draw_code();
              break;
            case 2:
              draw_run();
              break;
            case 3:
              draw_visualize();
              break;
            case 4:
              draw_exercise();
              break;
            default:
              draw_device();
              break;
          }
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
  for (const Lesson* l : all_lessons()) {
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

void AppWindow::draw_learn() {
  ImGui::PushTextWrapPos(0);
  draw_markdown(state().text, fonts_, &state().hints_shown);
  ImGui::PopTextWrapPos();
}

// The lesson's exercise: what to write and where, the Grade button and its result, the text's
// Exercise section with its hints one at a time, and the learner's file as it is now.
void AppWindow::draw_exercise() {
  const grading::Exercise* exercise = grading::find_exercise(lesson_->id);
  if (exercise == nullptr) {
    ImGui::TextDisabled("This lesson has no exercise.");
    return;
  }
  LessonState& s = state();
  ImGui::PushTextWrapPos(0);
  ImGui::TextWrapped("Your task: %s.", exercise->task.c_str());
  ImGui::TextWrapped("Your file: %s. It runs as the variant \"yours\" (tick it in the Run view).",
                     exercise->file.c_str());
  draw_grading(*exercise);
  draw_markdown(exercise_section(s.text), fonts_, &s.hints_shown);
  if (ImGui::CollapsingHeader(("Your file: " + exercise->file).c_str())) {
    if (ImGui::SmallButton("Reload")) s.exercise_source.clear();
    if (s.exercise_source.empty()) {
      std::string error;
      s.exercise_source = read_text(options_.data_dir + "/" + exercise->file, error);
      if (!error.empty()) s.exercise_source = "// " + error;
    }
    app::draw_code(s.exercise_source, fonts_, true);
  }
  ImGui::PopTextWrapPos();
}

// The Grade button (on the GPU or emulated) and the last grade: each size, the first failure.
void AppWindow::draw_grading(const grading::Exercise& exercise) {
  const bool busy = grade_job_.busy();
  const bool mine = grade_job_.exercise() == exercise.name;
  if (gpu_usable_) {
    ImGui::Checkbox("on the GPU", &grade_on_gpu_);
    ImGui::SameLine();
  }
  const Backend backend = gpu_usable_ && grade_on_gpu_ ? Backend::gpu : Backend::emulated;
  if (busy) {
    if (ImGui::Button("Cancel grading")) grade_job_.cancel();
    ImGui::SameLine();
    ImGui::TextDisabled("grading %s: %zu sizes done", exercise.name.c_str(), grade_job_.progress().size());
  } else if (ImGui::Button(backend == Backend::gpu ? "Grade my kernel (GPU)" : "Grade my kernel (emulated)")) {
    grade_job_.start(exercise, backend);
    state().exercise_source.clear();  // show the file as it was graded
  }
  const std::optional<grading::Grade> grade = mine ? grade_job_.result() : std::nullopt;
  if (!grade) return;
  const ImVec4 colour = grade->passed ? ImVec4(0.4f, 0.9f, 0.4f, 1) : ImVec4(1, 0.45f, 0.4f, 1);
  const char* verdict = grade->skipped ? "SKIPPED" : grade->passed ? "PASSED" : "NOT YET";
  ImGui::TextColored(colour, "%s on the %s backend (seed %llu)", verdict,
                     std::string(to_string(grade->backend)).c_str(), static_cast<unsigned long long>(grade->seed));
  for (const grading::CaseResult& c : grade->cases) {
    ImGui::TextColored(c.passed ? ImVec4(0.6f, 0.8f, 0.6f, 1) : ImVec4(1, 0.55f, 0.5f, 1), "  %s  %s, block %d",
                       c.passed ? "pass" : "FAIL", c.size.c_str(), c.block);
  }
  if (!grade->passed) ImGui::TextWrapped("%s", grade->message.c_str());
}

void AppWindow::draw_code() {
  // Every file of the lesson, a tab each: its kernels, headers, CPU code and exercise.
  if (!ImGui::BeginTabBar("sources", ImGuiTabBarFlags_FittingPolicyScroll)) return;
  for (const auto& [path, text] : state().sources) {
    if (!ImGui::BeginTabItem(std::filesystem::path(path).filename().string().c_str())) continue;
    ImGui::TextDisabled("%s", path.c_str());
    ImGui::BeginChild("code", {0, 0}, true, ImGuiWindowFlags_HorizontalScrollbar);
    app::draw_code(text, fonts_, true);
    ImGui::EndChild();
    ImGui::EndTabItem();
  }
  ImGui::EndTabBar();
}

void AppWindow::draw_parameters() {
  LessonState& s = state();
  const Lesson& l = *lesson_;
  ImGui::TextUnformatted("Size");
  ImGui::SetNextItemWidth(-1);
  long long n = s.n;
  if (ImGui::InputScalar("##n", ImGuiDataType_S64, &n)) s.n = std::clamp<long long>(n, 0, l.max_n);
  ImGui::TextDisabled("n: %s (up to %lld)", l.size_help.c_str(), static_cast<long long>(l.max_n));
  if (!l.sweep.empty()) {
    ImGui::TextUnformatted("Sweep up to");
    ImGui::SetNextItemWidth(-1);
    if (ImGui::BeginCombo("##sweep", std::to_string(l.sweep[s.sweep_max]).c_str())) {
      for (std::size_t i = 0; i < l.sweep.size(); ++i) {
        if (ImGui::Selectable(std::to_string(l.sweep[i]).c_str(), i == s.sweep_max)) s.sweep_max = i;
      }
      ImGui::EndCombo();
    }
  }
  ImGui::TextUnformatted("Threads per block");
  ImGui::SetNextItemWidth(-1);
  if (ImGui::InputInt("##block", &s.block, 32)) s.block = std::clamp(s.block, 1, 4096);  // the run says if too big
  ImGui::TextUnformatted("Repetitions");
  ImGui::SetNextItemWidth(-1);
  ImGui::SliderInt("##reps", &s.reps, 1, 100);
  ImGui::Separator();
  ImGui::TextUnformatted("Backends");
  ImGui::Checkbox("CPU", &s.cpu);
  ImGui::SameLine();
  ImGui::BeginDisabled(!gpu_usable_);
  ImGui::Checkbox("GPU", &s.gpu);
  ImGui::EndDisabled();
  if (!gpu_usable_ && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", gpu_note_.c_str());
  ImGui::SameLine();
  ImGui::Checkbox("Emulated", &s.emulated);
  ImGui::Separator();
  ImGui::TextUnformatted("Variants");
  for (const Variant& v : l.variants) {
    bool on = s.variants[v.name];
    if (ImGui::Checkbox(v.name.c_str(), &on)) s.variants[v.name] = on;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", v.description.c_str());
    // The badge: the last run's verdict on each backend.
    for (Backend b : kAllBackends) {
      const auto it = s.badges.find(v.name + " (" + std::string(to_string(b)) + ")");
      if (it == s.badges.end()) continue;
      ImGui::SameLine();
      const bool passed = it->second.empty();
      const bool skipped = it->second.rfind("skipped", 0) == 0;
      const ImVec4 colour = passed    ? ImVec4{0.4f, 0.85f, 0.45f, 1}
                            : skipped ? ImVec4{0.6f, 0.6f, 0.6f, 1}
                                      : ImVec4{1, 0.4f, 0.4f, 1};
      const std::string text = std::string(to_string(b)) + (passed ? " ✓" : skipped ? " –" : " ✗");
      ImGui::TextColored(colour, "%s", text.c_str());
      if (!passed && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", it->second.c_str());
    }
  }
  ImGui::Separator();
  const bool busy = runner_.busy();
  ImGui::BeginDisabled(busy);
  if (ImGui::Button("Run (F5)")) start(false);
  ImGui::SameLine();
  if (ImGui::Button("Sweep (F6)")) start(true);
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!busy);
  if (ImGui::Button("Cancel (Esc)")) runner_.cancel();
  ImGui::EndDisabled();
  if (busy) {
    const std::size_t expected = runner_.expected();
    const float fraction = expected > 0 ? static_cast<float>(runner_.done()) / static_cast<float>(expected) : 0.0f;
    ImGui::ProgressBar(fraction, {-1, 0}, fmt::format("{} of {}", runner_.done(), expected).c_str());
  }
  ImGui::Separator();
  if (ImGui::CollapsingHeader("Recorded results", ImGuiTreeNodeFlags_DefaultOpen)) {
    ImGui::TextDisabled("GPU rows measured on reference GPUs, drawn dashed");
    for (std::size_t i = 0; i < recorded_.size(); ++i) {
      const bool mine = std::any_of(recorded_[i].report.results.begin(), recorded_[i].report.results.end(),
                                    [&](const Result& x) { return x.lesson == l.id; });
      if (!mine) continue;
      bool shown = recorded_[i].shown;
      if (ImGui::Checkbox(recorded_[i].label.c_str(), &shown)) toggle_recorded(i, shown);
    }
    ImGui::SetNextItemWidth(-60);
    char path[512] = {};
    open_path_.copy(path, sizeof(path) - 1);
    if (ImGui::InputTextWithHint("##open", "results .json to open", path, sizeof(path))) open_path_ = path;
    ImGui::SameLine();
    if (ImGui::Button("Open") && !open_path_.empty()) open_results_file(open_path_);
  }
  if (ImGui::CollapsingHeader("Export")) {
    char dir[512] = {};
    export_dir_.copy(dir, sizeof(dir) - 1);
    ImGui::SetNextItemWidth(-1);
    if (ImGui::InputText("##export", dir, sizeof(dir))) export_dir_ = dir;
    if (ImGui::Button("Save CSV, JSON and PNG")) export_results();
  }
}

void AppWindow::draw_results_table() {
  const auto& results = series_.live_results();
  const bool flops = compute_bound(*lesson_);
  if (!ImGui::BeginTable(
          "results", 8,
          ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingFixedFit,
          {0, ImGui::GetContentRegionAvail().y})) {
    return;
  }
  ImGui::TableSetupScrollFreeze(0, 1);
  for (const char* h : {"variant", "backend", "n", "block", "check", "kernel", "end to end", "rate"}) {
    ImGui::TableSetupColumn(h);
  }
  ImGui::TableHeadersRow();
  for (auto it = results.rbegin(); it != results.rend(); ++it) {
    const Result& r = *it;
    if (r.lesson != lesson_->id) continue;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.variant.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(r.backend == Backend::emulated ? "emulated (CPU)"
                                                          : std::string(to_string(r.backend)).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%lld", static_cast<long long>(r.problem.n));
    ImGui::TableNextColumn();
    if (r.block > 0) ImGui::Text("%d", r.block);
    ImGui::TableNextColumn();
    const ImVec4 colour = r.status == Status::passed    ? ImVec4{0.4f, 0.85f, 0.45f, 1}
                          : r.status == Status::skipped ? ImVec4{0.6f, 0.6f, 0.6f, 1}
                                                        : ImVec4{1, 0.4f, 0.4f, 1};
    // A report of the emulator's checked mode names its tool in the row ("error: racecheck"); the
    // tooltip holds the whole report.
    const std::string tool = emulated::check::reported_tool(r.message);
    ImGui::TextColored(colour, "%s", (std::string(to_string(r.status)) + (tool.empty() ? "" : ": " + tool)).c_str());
    if (!r.message.empty() && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", r.message.c_str());
    ImGui::TableNextColumn();
    if (r.kernel) ImGui::TextUnformatted(format_ms(r.kernel->median).c_str());
    ImGui::TableNextColumn();
    if (r.total) ImGui::TextUnformatted(format_ms(r.total->median).c_str());
    ImGui::TableNextColumn();
    if (r.gflops > 0 && flops) {
      ImGui::TextUnformatted(format_value(r.gflops, Unit::gflops).c_str());
    } else if (r.gbps > 0) {
      ImGui::TextUnformatted(format_value(r.gbps, Unit::gbps).c_str());
    }
  }
  ImGui::EndTable();
}

void AppWindow::draw_plots() {
  const std::string& id = lesson_->id;
  int kind = time_kind_ == TimeKind::kernel ? 0 : 1;
  ImGui::TextUnformatted("Time:");
  ImGui::SameLine();
  if (ImGui::RadioButton("kernel only", kind == 0)) time_kind_ = TimeKind::kernel;
  ImGui::SameLine();
  if (ImGui::RadioButton("end to end, copies included", kind == 1)) time_kind_ = TimeKind::end_to_end;
  if (!lesson_->ladder_reference.empty()) {
    ImGui::SameLine(0, 24);
    ImGui::Checkbox("GFLOP/s as a ladder (bars at one size)", &show_ladder_);
  }
  draw_legend(series_, id, ImGui::GetContentRegionAvail().y * 0.2f);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float spacing = ImGui::GetStyle().ItemSpacing.y;
  const bool ladder = !lesson_->ladder_reference.empty() && show_ladder_;  // bars need the room
  const float top_height = std::max(160.0f, avail.y * (ladder ? 0.4f : 0.55f));
  const float bottom_height = std::max(140.0f, avail.y - top_height - spacing);
  const std::string when = time_kind_ == TimeKind::kernel ? "kernel" : "end to end";
  const std::string n_label = "n (" + lesson_->size_help + ")";
  draw_plot("time",
            {"Time against size (" + when + "), median with min-max", Unit::count, Unit::milliseconds, n_label, "time"},
            series_.times(id, time_kind_), {}, {avail.x, top_height});
  const float half = (avail.x - ImGui::GetStyle().ItemSpacing.x) / 2;
  draw_plot("speedup",
            {"Speedup over the best CPU variant (" + when + ")", Unit::count, Unit::ratio, n_label, "speedup"},
            series_.speedups(id, time_kind_), {{1.0, "1× (as fast as the CPU)"}}, {half, bottom_height});
  ImGui::SameLine();
  const bool flops = compute_bound(*lesson_);
  std::vector<ReferenceLine> ceilings;
  if (!flops) {
    if (ready(peaks_) && peaks_.get()) {
      ceilings.push_back(
          {peaks_.get()->copy_gbps, "this GPU's copy: " + format_value(peaks_.get()->copy_gbps, Unit::gbps)});
    }
    for (const auto& r : recorded_) {
      if (r.shown && r.report.peaks) {
        ceilings.push_back({r.report.peaks->copy_gbps, "copy on " + r.report.device.name + ": " +
                                                           format_value(r.report.peaks->copy_gbps, Unit::gbps)});
        break;  // one recorded ceiling is enough to read the plot against
      }
    }
  }
  if (flops) {
    // The FP32 ceiling: this GPU's, else the first recorded file's.
    if (ready(peaks_) && peaks_.get() && peaks_.get()->fp32_gflops > 0) {
      ceilings.push_back({peaks_.get()->fp32_gflops,
                          "this GPU's FP32 peak: " + format_value(peaks_.get()->fp32_gflops, Unit::gflops)});
    } else {
      for (const auto& r : recorded_) {
        if (r.shown && r.report.peaks && r.report.peaks->fp32_gflops > 0) {
          ceilings.push_back(
              {r.report.peaks->fp32_gflops, "FP32 peak of " + r.report.device.name + ": " +
                                                format_value(r.report.peaks->fp32_gflops, Unit::gflops)});
          break;
        }
      }
    }
  }
  if (!lesson_->ladder_reference.empty() && show_ladder_) {
    draw_ladder_chart(ceilings, {half, bottom_height});
    return;
  }
  draw_plot("rate",
            {flops ? "Achieved GFLOP/s (kernel)" : "Achieved bandwidth (kernel) against the measured ceiling",
             Unit::count, flops ? Unit::gflops : Unit::gbps, n_label, flops ? "GFLOP/s" : "GB/s"},
            series_.rates(id, flops ? RateKind::gflops : RateKind::gbps), ceilings, {half, bottom_height});
}

// The variants' GFLOP/s as bars at one size, against the library (the first reference) and the
// FP32 ceiling.
void AppWindow::draw_ladder_chart(const std::vector<ReferenceLine>& ceilings, ImVec2 size) {
  const Ladder ladder = series_.ladder(lesson_->id);
  std::vector<ReferenceLine> references;
  const LadderBar* library = nullptr;
  for (const auto& bar : ladder.bars) {
    if (bar.variant == lesson_->ladder_reference && (library == nullptr || bar.gflops > library->gflops))
      library = &bar;
  }
  if (library != nullptr)
    references.push_back({library->gflops, library->label + ": " + format_value(library->gflops, Unit::gflops)});
  references.insert(references.end(), ceilings.begin(), ceilings.end());
  const std::string title = ladder.n > 0 ? "The ladder: GFLOP/s at " + ladder.size + " (kernel)"
                                         : std::string("The ladder: GFLOP/s (kernel)");
  draw_ladder("ladder", title, ladder, references, size);
}

void AppWindow::draw_run() {
  if (ImGui::BeginTable("run", 2, ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableSetupColumn("parameters", ImGuiTableColumnFlags_WidthFixed, 330.0f * ImGui::GetFontSize() / 16.0f);
    ImGui::TableSetupColumn("plots", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    const float height = ImGui::GetContentRegionAvail().y;
    ImGui::BeginChild("parameters", {0, height}, false);
    draw_parameters();
    ImGui::EndChild();
    ImGui::TableSetColumnIndex(1);
    ImGui::BeginChild("plots", {0, height * 0.72f}, false);
    draw_plots();
    ImGui::EndChild();
    draw_results_table();
    ImGui::EndTable();
  }
}

void AppWindow::draw_visualize() {
  LessonState& s = state();
  const Lesson& l = *lesson_;
  if (l.live_training) {
    training_view_.draw(gpu_usable_);
    return;
  }
  if (l.timeline) {
    draw_timeline_panel();
    return;
  }
  if (!l.thread_map) {
    ImGui::TextWrapped("Lesson %s has no picture of its own yet: its measurements are in Run.", l.id.c_str());
    return;
  }
  ImGui::TextWrapped(
      "Every launched thread records its blockIdx, threadIdx and warp and the element it took. Each "
      "cell is an element, coloured by the warp that handled it; neighbouring blocks alternate in "
      "brightness; crossed-out cells are threads the bounds guard stopped. Hover a cell.");
  long long n = s.map_n;
  ImGui::SetNextItemWidth(160);
  if (ImGui::InputScalar("n", ImGuiDataType_S64, &n)) s.map_n = std::clamp<long long>(n, 1, l.thread_map_max_n);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(160);
  if (ImGui::InputInt("threads per block", &s.map_block, 16)) s.map_block = std::clamp(s.map_block, 1, 1024);
  for (const std::string& v : l.thread_map_variants) {  // the mappings the lesson offers
    ImGui::SameLine();
    const bool chosen = s.map_variant == v || (s.map_variant.empty() && v == l.thread_map_variants.front());
    if (ImGui::RadioButton(v.c_str(), chosen)) s.map_variant = v;
  }
  ImGui::SameLine();
  const Backend backend = gpu_usable_ ? Backend::gpu : Backend::emulated;
  const bool recording = map_future_.valid();
  ImGui::BeginDisabled(recording);
  const bool first = !s.map && s.map_error.empty() && !recording;
  if (ImGui::Button(gpu_usable_ ? "Record on the GPU" : "Record (emulated)") || first) {
    map_future_ = std::async(std::launch::async, [&l, n = s.map_n, block = s.map_block, backend, v = s.map_variant] {
      return l.thread_map(n, block, backend, v);
    });
  }
  ImGui::EndDisabled();
  if (ready(map_future_)) {
    try {
      s.map = map_future_.get();
      s.map_error.clear();
    } catch (const std::exception& e) {
      s.map.reset();
      s.map_error = e.what();
    }
  }
  if (!s.map_error.empty()) ImGui::TextColored({1, 0.4f, 0.4f, 1}, "%s", s.map_error.c_str());
  if (s.map) {
    const ThreadMap& m = *s.map;
    ImGui::Text("%s over %s: %zu threads, %zu stopped by the bounds guard (%s)", m.launch.c_str(),
                m.rows > 1 ? fmt::format("a {} x {} matrix", m.rows, m.cols).c_str()
                           : fmt::format("{} elements", m.cols).c_str(),
                m.threads.size(), m.outside(), m.backend == Backend::gpu ? "recorded on the GPU" : "emulated");
    ImGui::TextDisabled("%s", m.mapping.c_str());
    ImGui::BeginChild("map", {0, 0}, true, ImGuiWindowFlags_HorizontalScrollbar);
    draw_thread_map(m, ImGui::GetContentRegionAvail());
    ImGui::EndChild();
  }
}

void AppWindow::draw_timeline_panel() {
  namespace fs = std::filesystem;
  LessonState& s = state();
  const Lesson& l = *lesson_;
  ImGui::TextWrapped(
      "One run of the overlapped pipeline, recorded with an event before and after every operation: the "
      "serial run (copy in, kernel, copy out on one stream) on top, then what each engine did, then what "
      "each stream did. A stream's bar starts when the stream reaches the operation, which may be before "
      "its engine is free. Hover a bar.");
  long long n = s.timeline_n;
  ImGui::SetNextItemWidth(160);
  if (ImGui::InputScalar("elements", ImGuiDataType_S64, &n)) s.timeline_n = std::clamp<long long>(n, 1, l.max_n);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(110);
  if (ImGui::InputInt("chunks", &s.timeline_chunks)) s.timeline_chunks = std::clamp(s.timeline_chunks, 1, 4096);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(110);
  if (ImGui::InputInt("streams", &s.timeline_streams)) s.timeline_streams = std::clamp(s.timeline_streams, 1, 64);
  for (const auto& [variant, label] : l.timeline_variants) {  // the pipelines the lesson offers
    ImGui::SameLine();
    if (s.timeline_variant.empty()) s.timeline_variant = variant;
    if (ImGui::RadioButton(label.c_str(), s.timeline_variant == variant)) s.timeline_variant = variant;
  }
  const bool recording = timeline_future_.valid();
  if (gpu_usable_) {
    ImGui::SameLine();
    ImGui::BeginDisabled(recording);
    if (ImGui::Button("Record on the GPU")) {
      const std::string shape = fmt::format("{}:{}:{}", s.timeline_n, s.timeline_chunks, s.timeline_streams);
      timeline_future_ = std::async(
          std::launch::async, [&l, shape, v = s.timeline_variant] { return l.timeline(l.parse_shape(shape), v, 256); });
    }
    ImGui::EndDisabled();
  } else if (!s.timeline && s.timeline_error.empty() && !l.recorded_timeline.empty()) {
    // No GPU here: the timeline recorded on a reference GPU, marked as such.
    const std::string path = (fs::path(options_.data_dir) / l.recorded_timeline).string();
    try {
      std::string error;
      const std::string text = read_text(path, error);
      if (!error.empty()) throw std::runtime_error(error);
      s.timeline = timeline_from_json(text);
      s.timeline_note = fmt::format(
          "Recorded on {} ({}): this machine has no GPU to record one. `lesson{}_{} --timeline --json FILE` "
          "records your own on a GPU.",
          s.timeline->device, s.timeline->recorded, l.id, l.name);
    } catch (const std::exception& e) {
      s.timeline_error = e.what();
    }
  }
  if (ready(timeline_future_)) {
    try {
      s.timeline = timeline_future_.get();
      s.timeline_note = fmt::format("Recorded on this machine's {}, {}.", s.timeline->device, s.timeline->recorded);
      s.timeline_error.clear();
    } catch (const std::exception& e) {
      s.timeline_error = e.what();
    }
  }
  if (recording) ImGui::TextDisabled("recording...");
  if (!s.timeline_error.empty()) ImGui::TextColored({1, 0.4f, 0.4f, 1}, "%s", s.timeline_error.c_str());
  if (!s.timeline) return;
  const Timeline& t = *s.timeline;
  ImGui::TextWrapped("%s", s.timeline_note.c_str());
  ImGui::Text("%s, n = %lld in %d chunks over %d streams: serial %.3f ms, overlapped %.3f ms (%.2fx)",
              t.variant.c_str(), static_cast<long long>(t.n), t.chunks, t.streams, t.serial_ms(), t.overlapped_ms(),
              t.overlapped_ms() > 0 ? t.serial_ms() / t.overlapped_ms() : 0.0);
  ImGui::BeginChild("timeline", {0, 0}, true, ImGuiWindowFlags_HorizontalScrollbar);
  draw_timeline(t, ImGui::GetContentRegionAvail());
  ImGui::EndChild();
}

void AppWindow::draw_device() {
  const DeviceInfo& d = device_info();
  ImGui::PushFont(fonts_.heading[2]);
  ImGui::TextUnformatted("This machine");
  ImGui::PopFont();
  if (d.available) {
    ImGui::Text("GPU: %s", d.name.c_str());
    ImGui::Text("Compute capability %s, %d SMs, %.1f GiB, %d threads per block at most", d.compute_capability().c_str(),
                d.multiprocessors, static_cast<double>(d.total_memory) / (1 << 30), d.max_threads_per_block);
    ImGui::Text("Driver supports CUDA %s, runtime %s", d.driver_string().c_str(), d.runtime_string().c_str());
    if (ready(peaks_)) {
      if (const auto& p = peaks_.get()) {
        ImGui::Text("Measured device-to-device copy: %s", format_value(p->copy_gbps, Unit::gbps).c_str());
      }
    } else {
      ImGui::TextDisabled("measuring the copy bandwidth...");
    }
  }
  if (!gpu_usable_) {
    ImGui::TextColored({1, 0.75f, 0.3f, 1}, "No GPU in use");
    ImGui::TextWrapped("%s", gpu_note_.c_str());
    ImGui::TextWrapped(
        "GPU kernels still run on the emulated backend: the same CUDA source compiled as C++, "
        "every block's threads as fibers on the CPU. Its times are CPU times, labelled "
        "'emulated' everywhere. Real GPU curves come from the recorded results in assets/results/.");
  }
  ImGui::Spacing();
  ImGui::PushFont(fonts_.heading[2]);
  ImGui::TextUnformatted("Recorded reference runs");
  ImGui::PopFont();
  for (const auto& r : recorded_) {
    ImGui::BulletText("%s: %s, %s, %zu rows%s", r.label.c_str(), r.report.date.c_str(), r.report.command.c_str(),
                      r.report.results.size(),
                      r.report.peaks ? (", copy " + format_value(r.report.peaks->copy_gbps, Unit::gbps)).c_str() : "");
  }
  if (!fonts_.note.empty()) ImGui::TextDisabled("%s", fonts_.note.c_str());
  if (!errors_.empty()) {
    ImGui::Spacing();
    ImGui::PushFont(fonts_.heading[2]);
    ImGui::TextUnformatted("Messages");
    ImGui::PopFont();
    for (const auto& e : errors_) ImGui::TextWrapped("%s", e.c_str());
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

}  // namespace gpulab::app
