// The Run view: the parameters, the live plots and the results table.
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>

#include "ui/app_window.hpp"
#include "ui/plot.hpp"
#include "ui/view_helpers.hpp"

namespace gpulab::app {

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
    ImGui::TextUnformatted(backend_text(r).c_str());
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
    const std::string tool = reported_tool(r);
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
    ImGui::Checkbox(
        compute_bound(*lesson_) ? "GFLOP/s as a ladder (bars at one size)" : "GB/s as a ladder (bars at one size)",
        &show_ladder_);
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

// The variants' rates as bars at one size — GFLOP/s where the lesson is arithmetic, GB/s where it
// is memory traffic — against the library (the first reference) and the measured ceiling.
void AppWindow::draw_ladder_chart(const std::vector<ReferenceLine>& ceilings, ImVec2 size) {
  const bool flops = compute_bound(*lesson_);
  const Unit unit = flops ? Unit::gflops : Unit::gbps;
  const Ladder ladder = series_.ladder(lesson_->id, flops ? RateKind::gflops : RateKind::gbps);
  std::vector<ReferenceLine> references;
  const LadderBar* library = nullptr;
  for (const auto& bar : ladder.bars) {
    if (bar.variant == lesson_->ladder_reference && (library == nullptr || bar.value > library->value)) library = &bar;
  }
  if (library != nullptr)
    references.push_back({library->value, library->label + ": " + format_value(library->value, unit)});
  references.insert(references.end(), ceilings.begin(), ceilings.end());
  const std::string what = flops ? "GFLOP/s" : "GB/s";
  const std::string title =
      ladder.n > 0 ? "The ladder: " + what + " at " + ladder.size + " (kernel)" : "The ladder: " + what + " (kernel)";
  draw_ladder("ladder", title, ladder, unit, references, size);
}

}  // namespace gpulab::app
