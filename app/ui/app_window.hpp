#pragma once
// The app's state and its panels, drawn once a frame: the lesson list, and for the selected lesson
// the views of kViews (Learn, Code, Run, Visualize, Exercise, Device). Runs go through the runner thread; this class
// only reads what it publishes.
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/lesson.hpp"
#include "common/peaks.hpp"
#include "common/results.hpp"
#include "common/thread_map.hpp"
#include "common/timeline.hpp"
#include "core/grade_job.hpp"
#include "core/kernel_facts.hpp"
#include "core/markdown.hpp"
#include "core/profiles.hpp"
#include "core/runner.hpp"
#include "core/series.hpp"
#include "core/settings.hpp"
#include "ui/fonts.hpp"
#include "ui/image_training_view.hpp"
#include "ui/plot.hpp"
#include "ui/steps_view.hpp"
#include "ui/training_view.hpp"

namespace gpulab::app {

// Whether a lesson has something for the Visualize view (a thread map, a timeline, live training)
// and for the Exercise view.
bool has_visualization(const Lesson& lesson);
bool has_exercise(const Lesson& lesson);
// Whether a lesson has kernels the emulator runs (the Memory view counts their accesses).
bool has_memory_counts(const Lesson& lesson);

struct AppOptions {
  std::string data_dir;               // the repository: docs/, kernels/, assets/
  std::string lesson, view;           // empty: the remembered ones
  bool run = false, sweep = false;    // start a run or a sweep at once
  std::vector<Backend> backends;      // empty: CPU and GPU, or CPU and emulated without a GPU
  std::vector<std::string> variants;  // empty: every variant but the planted bugs and the exercise
  std::optional<std::int64_t> n;
  std::optional<std::int64_t> sweep_max;
  std::vector<std::string> open_results;
  std::string export_dir = "gpulab-export";
  bool grade = false;        // grade the lesson's exercise at once (the Exercise view's button)
  int hints = 0;             // hints of the exercise shown at first
  bool map_sectors = false;  // the thread map coloured by sectors per warp request at first
  std::string code_tab;      // the Code view's tab at first: a file's name, or "machine code"
};

class AppWindow {
 public:
  AppWindow(AppOptions options, Fonts fonts, LoadedSettings settings);
  void frame();
  // True once the requested run or sweep has finished (or none was requested) and one more
  // frame has shown the result: the --screenshot mode saves then.
  bool settled() const;
  Settings settings() const;
  const std::vector<std::string>& errors() const { return errors_; }
  // The export buttons ask for a PNG of the window; main() writes it after rendering.
  std::optional<std::string> take_png_request();
  void report(const std::string& message) { status_ = message; }
  // Saves this session's measurements as CSV and JSON, and asks for a PNG of the window, in the
  // export folder; returns what it did (or why not).
  std::string export_results();
  // The views' --view keys in the order of their tabs: all of them, or those `lesson` offers.
  static std::vector<std::string> view_keys(const Lesson* lesson = nullptr);

 private:
  // A view: its --view key, its tab's title, what draws it, and whether a lesson offers it (null: every lesson).
  struct View {
    const char* key;
    const char* title;
    void (AppWindow::*draw)();
    bool (*offered)(const Lesson&);
  };
  static const View kViews[7];

  struct LessonState {
    std::int64_t n = 0;
    int block = 256, reps = 10;
    std::map<std::string, bool> variants;
    bool cpu = true, gpu = false, emulated = false;
    std::size_t sweep_max = 0;  // index into lesson.sweep
    std::vector<MarkdownBlock> text;
    std::vector<std::pair<std::string, std::string>> sources;  // (path, text): the Code view's tabs
    std::vector<std::string> source_tabs;                      // their names (core/code_tabs.hpp)
    std::vector<std::string> kernels;                          // the kernels its sources define
    std::size_t code_kernel = 0;                               // the Code view's machine code: which kernel,
    bool code_ptx = false;                                     // SASS or PTX,
    std::string machine_code, machine_code_of;                 // and the text shown (of "kernel.sass")
    std::map<std::string, std::string> badges;                 // "variant (backend)" -> message; "" passed
    // Visualize
    std::int64_t map_n = 40;
    int map_block = 16;
    std::string map_variant;
    std::optional<ThreadMap> map;
    std::string map_error;
    bool map_sectors = false;  // colour by sectors per warp request instead of by warp
    std::map<std::pair<std::uint64_t, unsigned>, double> map_sectors_of;  // (block, warp) -> sectors / request
    std::string map_sectors_note;
    // Memory: every variant counted on the emulator at one size
    std::int64_t memory_n = 0;
    std::vector<Result> memory_results;
    std::string memory_variant, memory_error;
    std::size_t memory_line = 0;
    std::string profile_section;  // the recorded profiles' section shown
    // Visualize, lesson 08: the timeline asked for, and the one shown (recorded here or loaded)
    std::int64_t timeline_n = std::int64_t{1} << 24;
    int timeline_chunks = 8, timeline_streams = 4;
    std::string timeline_variant;  // "": the lesson's first
    std::optional<Timeline> timeline;
    std::string timeline_note, timeline_error;
    // Learn and Exercise: the exercise's hints shown so far, the learner's file as last read
    int hints_shown = 0;
    std::string exercise_source;
    int exercise = 0;  // which of the lesson's exercises (lesson 07 has two)
    bool loaded = false;
  };

  LessonState& state();
  void load(LessonState& s);
  void select(const Lesson* lesson);
  void poll_runner();
  void start(bool sweep);
  void load_recorded();
  bool read_recorded(const std::string& path);  // false (and a message) for a bad file
  void toggle_recorded(std::size_t index, bool shown);
  void open_results_file(const std::string& path);

  void draw_sidebar();
  void draw_learn();
  void draw_exercise();
  void draw_grading(const grading::Spec& exercise);
  void draw_code();
  void draw_machine_code();
  void draw_kernel_facts(const std::vector<const Result*>& counted);
  void draw_profiles();
  void draw_run();
  void draw_parameters();
  void draw_results_table();
  void draw_plots();
  void draw_ladder_chart(const std::vector<ReferenceLine>& ceilings, ImVec2 size);
  void draw_visualize();
  void draw_thread_map_panel();
  void count_map_sectors();
  void draw_memory();
  void draw_timeline_panel();
  void draw_device();
  void draw_status_bar();
  void handle_shortcuts();

  AppOptions options_;
  Fonts fonts_;
  Settings settings_;
  const Lesson* lesson_ = nullptr;
  std::map<std::string, LessonState> states_;
  Runner runner_;
  SeriesSet series_;
  bool gpu_usable_ = false;
  std::string gpu_note_;
  std::shared_future<std::optional<Peaks>> peaks_;

  struct Recorded {
    std::string path, label;
    Report report;
    bool shown = false;
  };
  std::vector<Recorded> recorded_;
  std::vector<std::string> errors_;  // files that could not be read, runs that failed to start
  std::string status_;
  std::vector<std::string> notes_;
  std::string open_path_, export_dir_;
  std::optional<std::string> png_request_;
  std::string kernel_code_;                          // the build's machine code, or kernels/ (TOPIC/machine_code)
  std::map<std::string, KernelFacts> kernel_facts_;  // their facts.json, by TOPIC::NAME
  std::vector<Profile> profiles_;                    // recorded: assets/profiles/*.json
  std::future<ThreadMap> map_future_;
  std::future<std::vector<Result>> map_sectors_future_, memory_future_;
  std::future<Timeline> timeline_future_;
  TrainingView training_view_;  // lesson 07's Visualize view
  ImageTrainingView image_training_view_;
  StepsView steps_view_;  // shared memory step by step
  GradeJob grade_job_;    // the Exercise view's Grade button
  bool grade_on_gpu_ = true;
  bool pending_start_ = false, started_ = false, finished_ = false;
  int frames_after_finish_ = 0;
  bool show_ladder_ = true;  // lessons with a ladder: bars at one size instead of rate against n
  TimeKind time_kind_ = TimeKind::kernel;
};

}  // namespace gpulab::app
