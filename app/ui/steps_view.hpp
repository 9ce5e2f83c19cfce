#pragma once
// The Visualize view of lessons with shared-memory steps (reduction, scan, histogram): a variant
// run on the emulator at a small size, one block recorded, drawn as the shared array after each
// barrier — a row a phase, each written element coloured by its thread's warp, lines from the
// elements a thread read to the one it wrote. Hover a cell for who did what. Lesson 19's recording
// is drawn as the online softmax its warps carried instead (online_softmax_view.hpp).
#include <imgui.h>

#include <cstdint>
#include <future>
#include <map>
#include <optional>
#include <string>

#include "common/online_softmax_steps.hpp"
#include "common/shared_steps.hpp"

namespace gpulab::app {

class StepsView {
 public:
  // Records the lesson's first step variant the first time it is drawn.
  void draw(const Lesson& lesson);
  bool idle() const { return !future_.valid(); }

 private:
  struct State {
    std::string variant;
    char problem[64] = {};  // an n, or a shape
    std::optional<StepRecording> recording;
    std::string error;
    int launch = 0, array = -1;                 // the trace shown, and its array (-1: the most used)
    bool window = false;                        // 32 elements at a time instead of all
    int first = 0;                              // the window's first element
    std::optional<OnlineSoftmaxSteps> softmax;  // read from `recording` (SharedMemorySteps::Picture::online_softmax)
    int query = 0;                              // the softmax's query shown
  };
  void record(const Lesson& lesson, State& s);

  std::map<std::string, State> states_;  // by lesson id
  std::future<StepRecording> future_;
  std::string recording_for_;       // the lesson id the running recording belongs to
  bool recording_softmax_ = false;  // and whether that lesson draws it as an online softmax
};

// The columns an array is drawn in: its elements, or N for one of K rows of N ([2][N], [8][N]).
std::size_t step_columns(const emulated::shared_steps::ArrayInfo& info);

// Draws one trace's array `array`, elements [first, first + count), in `size`.
void draw_shared_steps(const emulated::shared_steps::Trace& trace, std::uint32_t array, std::size_t first,
                       std::size_t count, ImVec2 size);

}  // namespace gpulab::app
