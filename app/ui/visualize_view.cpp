// The Visualize view: what the lesson offers to watch — a thread map, a timeline, training live or
// shared memory step by step.
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <filesystem>

#include "common/session.hpp"
#include "ui/app_window.hpp"
#include "ui/thread_map_view.hpp"
#include "ui/timeline_view.hpp"
#include "ui/view_helpers.hpp"

namespace gpulab::app {

void AppWindow::draw_visualize() {
  const Lesson& l = *lesson_;
  if (l.training && l.training->live_network) {
    training_view_.draw(gpu_usable_);
    return;
  }
  if (l.training && l.training->live_images) {
    image_training_view_.draw(l, gpu_usable_);
    return;
  }
  if (l.timeline && !l.timeline->variants.empty()) {  // lesson 08's pipelines (lesson 10's step timeline: --timeline)
    draw_timeline_panel();
    return;
  }
  if (l.thread_map) {
    draw_thread_map_panel();
    return;
  }
  if (l.steps) {
    steps_view_.draw(l);
    return;
  }
  ImGui::TextWrapped("Lesson %s has no picture of its own yet: its measurements are in Run.", l.id.c_str());
}

// Which block, thread and warp took each element of a small launch, recorded on the GPU or emulated.
void AppWindow::draw_thread_map_panel() {
  LessonState& s = state();
  const Lesson& l = *lesson_;
  ImGui::TextWrapped(s.map_sectors
                         ? "Every launched thread records its blockIdx, threadIdx and warp and the element it took. "
                           "Each cell is an element, coloured by how many 32-byte sectors its warp's loads and "
                           "stores touch per request: green 4 or fewer (the warp's 32 floats side by side: "
                           "coalesced), red 32 (every lane in a sector of its own). Hover a cell."
                         : "Every launched thread records its blockIdx, threadIdx and warp and the element it took. "
                           "Each cell is an element, coloured by the warp that handled it; neighbouring blocks "
                           "alternate in brightness; crossed-out cells are threads the bounds guard stopped. Hover "
                           "a cell.");
  long long n = s.map_n;
  ImGui::SetNextItemWidth(160);
  if (ImGui::InputScalar("n", ImGuiDataType_S64, &n)) s.map_n = std::clamp<long long>(n, 1, l.thread_map->max_n);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(160);
  if (ImGui::InputInt("threads per block", &s.map_block, 16)) s.map_block = std::clamp(s.map_block, 1, 1024);
  for (const std::string& v : l.thread_map->variants) {  // the mappings the lesson offers
    ImGui::SameLine();
    const bool chosen = s.map_variant == v || (s.map_variant.empty() && v == l.thread_map->variants.front());
    if (ImGui::RadioButton(v.c_str(), chosen)) s.map_variant = v;
  }
  ImGui::SameLine();
  const Backend backend = gpu_usable_ ? Backend::gpu : Backend::emulated;
  const bool recording = map_future_.valid();
  ImGui::BeginDisabled(recording);
  const bool first = !s.map && s.map_error.empty() && !recording;
  if (ImGui::Button(gpu_usable_ ? "Record on the GPU" : "Record (emulated)") || first) {
    map_future_ = std::async(std::launch::async, [&l, n = s.map_n, block = s.map_block, backend, v = s.map_variant] {
      return l.thread_map->record(n, block, backend, v);
    });
    if (s.map_sectors) count_map_sectors();
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
  // Colour by the sectors each warp's requests touch: the lesson's variant of that mapping counted
  // on the emulator at the same size and block.
  if (ImGui::Checkbox("colour by sectors per warp request (counted on the emulator)", &s.map_sectors) &&
      s.map_sectors) {
    count_map_sectors();
  }
  if (ready(map_sectors_future_)) {
    try {
      s.map_sectors_of.clear();
      for (const Result& r : map_sectors_future_.get()) {
        if (r.status != Status::passed) s.map_sectors_note = r.variant + ": " + r.message;
        std::map<std::pair<std::uint64_t, unsigned>, std::pair<double, double>> sums;
        for (const emulated::KernelTraffic& k : r.memory) {
          for (const emulated::WarpTraffic& w : k.warps) {
            auto& [requests, sectors] = sums[{w.block, w.warp}];
            requests += static_cast<double>(w.requests), sectors += static_cast<double>(w.sectors);
          }
        }
        for (const auto& [key, sum] : sums) s.map_sectors_of[key] = sum.first > 0 ? sum.second / sum.first : 0;
      }
    } catch (const std::exception& e) {
      s.map_sectors_note = e.what();
    }
  }
  if (s.map_sectors) {
    ImGui::SameLine();
    ImGui::TextDisabled("%s", s.map_sectors_note.c_str());
  }
  if (s.map) {
    const ThreadMap& m = *s.map;
    ImGui::Text("%s over %s: %zu threads, %zu stopped by the bounds guard (%s)", m.launch.c_str(),
                m.rows > 1 ? fmt::format("a {} x {} matrix", m.rows, m.cols).c_str()
                           : fmt::format("{} elements", m.cols).c_str(),
                m.threads.size(), m.outside(), m.backend == Backend::gpu ? "recorded on the GPU" : "emulated");
    ImGui::TextDisabled("%s", m.mapping.c_str());
    ImGui::BeginChild("map", {0, 0}, true, ImGuiWindowFlags_HorizontalScrollbar);
    draw_thread_map(m, ImGui::GetContentRegionAvail(), s.map_sectors ? &s.map_sectors_of : nullptr);
    ImGui::EndChild();
  }
}

// Counts the chosen mapping's kernel on the emulator, warp by warp, at the thread map's size and block.
void AppWindow::count_map_sectors() {
  LessonState& s = state();
  const Lesson& l = *lesson_;
  const std::string variant = !s.map_variant.empty()            ? s.map_variant
                              : !l.thread_map->variants.empty() ? l.thread_map->variants.front()
                                                                : std::string();
  if (std::none_of(l.variants.begin(), l.variants.end(), [&](const Variant& v) { return v.name == variant; })) {
    s.map_sectors_note = "no variant of this lesson launches this mapping";
    return;
  }
  Selection selection;
  selection.sizes = {s.map_n};
  selection.variants = {variant};
  selection.backends = {Backend::emulated};
  selection.options.reps = 1;
  selection.options.warmup = 0;
  selection.options.block = s.map_block;
  selection.options.count_memory = selection.options.count_warps = true;
  s.map_sectors_note = fmt::format(
      "{}'s loads and stores, {} threads per block: green 4 sectors per request or "
      "fewer (coalesced), red 32 (a sector per lane)",
      variant, s.map_block);
  map_sectors_future_ = std::async(std::launch::async, [&l, selection] { return run_lesson(l, selection); });
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
  for (const auto& [variant, label] : l.timeline->variants) {  // the pipelines the lesson offers
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
      timeline_future_ = std::async(std::launch::async, [&l, shape, v = s.timeline_variant] {
        return l.timeline->record(l.parse_shape(shape), v, 256);
      });
    }
    ImGui::EndDisabled();
  } else if (!s.timeline && s.timeline_error.empty() && !l.timeline->recorded.empty()) {
    // No GPU here: the timeline recorded on a reference GPU, marked as such.
    const std::string path = (fs::path(options_.data_dir) / l.timeline->recorded).string();
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

}  // namespace gpulab::app
