// The Memory view: what the lesson's kernels ask of memory, counted on the emulator at every access
// (global requests and the 32-byte sectors they touch, shared-memory requests and bank conflicts),
// per variant and per source line; one warp's request drawn; and a roofline that puts each
// variant's predicted point beside its measured one.
#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "common/session.hpp"
#include "core/kernel_facts.hpp"
#include "ui/app_window.hpp"
#include "ui/memory_pictures.hpp"
#include "ui/view_helpers.hpp"

namespace gpulab::app {

namespace {

bool emulates(const Variant& v) {
  return !v.exercise && !v.deliberately_wrong &&
         std::any_of(v.backends.begin(), v.backends.end(), [](auto& b) { return b.first == Backend::emulated; });
}

// A size the emulator counts in seconds: the lesson's largest sweep size with at most 1e8 FLOPs
// and 2e8 bytes, else its smallest.
std::int64_t counting_size(const Lesson& l) {
  std::int64_t chosen = l.sweep.empty() ? l.default_n : l.sweep.front();
  for (const std::int64_t n : l.sweep) {
    const Counts c = l.counts(l.problem(n));
    if (c.flops <= 1e8 && c.bytes <= 2e8) chosen = std::max(chosen, n);
  }
  return chosen;
}

double sector_bytes(const Result& r) {
  double bytes = 0;
  for (const emulated::KernelTraffic& k : r.memory) bytes += k.sector_bytes();
  return bytes;
}

}  // namespace

bool has_memory_counts(const Lesson& lesson) {
  return std::any_of(lesson.variants.begin(), lesson.variants.end(), emulates);
}

void AppWindow::draw_memory() {
  LessonState& s = state();
  const Lesson& l = *lesson_;
  if (s.memory_n == 0) s.memory_n = counting_size(l);
  ImGui::TextWrapped(
      "The emulator sees every access of every thread, so it counts what Nsight Compute counts on a GPU: each "
      "warp instruction that reads or writes global memory is one request, served in 32-byte sectors (32 "
      "consecutive floats: 4 sectors; 32 floats a row apart: 32); shared memory answers a warp in one pass "
      "(wavefront) unless two lanes need different words of one of its 32 banks — a bank conflict. "
      "docs/benchmarks.md compares these counts with Nsight Compute's on an H100.");
  if (ready(memory_future_)) {
    try {
      s.memory_results = memory_future_.get();
      s.memory_error.clear();
    } catch (const std::exception& e) {
      s.memory_error = e.what();
    }
  }
  draw_profiles();
  long long n = s.memory_n;
  ImGui::SetNextItemWidth(160);
  if (ImGui::InputScalar("n", ImGuiDataType_S64, &n)) s.memory_n = std::clamp<long long>(n, 1, l.max_n);
  ImGui::SameLine();
  const bool counting = memory_future_.valid();
  ImGui::BeginDisabled(counting);
  if (ImGui::Button("Count every variant (emulated)") ||
      (s.memory_results.empty() && s.memory_error.empty() && !counting)) {
    Selection selection;
    selection.sizes = {s.memory_n};
    selection.backends = {Backend::emulated};
    for (const Variant& v : l.variants) {
      if (emulates(v)) selection.variants.push_back(v.name);
    }
    selection.options.reps = 1;
    selection.options.warmup = 0;
    selection.options.block = s.block;
    selection.options.count_memory = true;
    memory_future_ = std::async(std::launch::async, [&l, selection] { return run_lesson(l, selection); });
  }
  ImGui::EndDisabled();
  if (counting) {
    ImGui::SameLine();
    ImGui::TextDisabled("counting (the emulator runs every thread)...");
  }
  if (!s.memory_error.empty()) ImGui::TextColored({1, 0.4f, 0.4f, 1}, "%s", s.memory_error.c_str());

  std::vector<const Result*> counted;
  for (const Result& r : s.memory_results) {
    if (!r.memory.empty()) counted.push_back(&r);
  }
  if (counted.empty()) {
    for (const Result& r : s.memory_results) ImGui::TextDisabled("%s: %s", r.variant.c_str(), r.message.c_str());
    return;
  }
  if (std::none_of(counted.begin(), counted.end(), [&](const Result* r) { return r->variant == s.memory_variant; })) {
    s.memory_variant = counted.front()->variant;
    for (const Result* r : counted) {  // --variant NAME: the one shown first
      if (!options_.variants.empty() && r->variant == options_.variants.front()) s.memory_variant = r->variant;
    }
    s.memory_line = 0;
  }

  // Per variant and kernel: the counts, as Nsight Compute's memory tables show them.
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
  if (ImGui::BeginTable("memory", 8, flags)) {
    for (const char* h : {"variant", "kernel", "global loads: requests", "sectors / request", "global stores",
                          "sectors used", "shared requests", "bank conflicts"}) {
      ImGui::TableSetupColumn(h);
    }
    ImGui::TableHeadersRow();
    for (const Result* r : counted) {
      for (const emulated::KernelTraffic& k : r->memory) {
        using emulated::MemoryKind;
        const emulated::Traffic& ld = k.of(MemoryKind::global_load);
        const emulated::Traffic& st = k.of(MemoryKind::global_store);
        emulated::Traffic global = ld, shared = k.of(MemoryKind::shared_load);
        global += st;
        shared += k.of(MemoryKind::shared_store);
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        if (ImGui::Selectable(r->variant.c_str(), s.memory_variant == r->variant,
                              ImGuiSelectableFlags_SpanAllColumns)) {
          s.memory_variant = r->variant;
          s.memory_line = 0;
        }
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(k.kernel.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(thousands(ld.requests).c_str());
        ImGui::TableNextColumn();
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(sectors_colour(ld.per_request())), "%.2f", ld.per_request());
        ImGui::TableNextColumn();
        ImGui::Text("%s (%.2f)", thousands(st.requests).c_str(), st.per_request());
        ImGui::TableNextColumn();
        ImGui::Text("%.0f %%", 100 * global.efficiency());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(thousands(shared.requests).c_str());
        ImGui::TableNextColumn();
        if (shared.conflicts() > 0) {
          ImGui::TextColored({1, 0.45f, 0.45f, 1}, "%s", thousands(shared.conflicts()).c_str());
        } else {
          ImGui::TextUnformatted(shared.requests > 0 ? "0" : "—");
        }
      }
    }
    ImGui::EndTable();
  }
  // Each variant's whole traffic, its kernels' sectors added: what fusing kernels saves (lesson
  // 19's naive rung against its fused ones) in one line.
  std::string totals = "Global memory traffic of each variant (its kernels' 32-byte sectors, loads and stores):";
  for (const Result* r : counted) {
    totals += fmt::format("{} {} {:.3g} MB", r == counted.front() ? "" : " ·", r->variant, sector_bytes(*r) / 1e6);
  }
  ImGui::TextWrapped("%s", totals.c_str());

  draw_kernel_facts(counted);

  // The chosen variant's costliest lines; one warp's request of the chosen line, drawn.
  const Result& chosen =
      **std::find_if(counted.begin(), counted.end(), [&](const Result* r) { return r->variant == s.memory_variant; });
  std::vector<const emulated::LineTraffic*> lines;
  for (const emulated::KernelTraffic& k : chosen.memory) {
    for (const emulated::LineTraffic& line : k.lines) lines.push_back(&line);
  }
  ImGui::Spacing();
  ImGui::Text("%s, %s: its costliest lines (as Nsight Compute's source view)", chosen.variant.c_str(),
              problem_label(chosen.problem).c_str());
  for (std::size_t i = 0; i < lines.size() && i < 6; ++i) {
    const emulated::LineTraffic& line = *lines[i];
    const bool shared = emulated::is_shared(line.kind);
    const std::string label =
        shared ? fmt::format("{}  {}: {} requests, {:.2f} wavefronts each, {} bank conflicts", line.place,
                             to_string(line.kind), thousands(line.traffic.requests), line.traffic.per_request(),
                             thousands(line.traffic.conflicts()))
               : fmt::format("{}  {}: {} requests, {:.2f} sectors each, {:.0f} % of each sector used", line.place,
                             to_string(line.kind), thousands(line.traffic.requests), line.traffic.per_request(),
                             100 * line.traffic.efficiency());
    if (ImGui::Selectable(label.c_str(), s.memory_line == i)) s.memory_line = i;
  }
  if (s.memory_line < lines.size()) {
    const emulated::LineTraffic& line = *lines[s.memory_line];
    ImGui::Spacing();
    ImGui::Text("Its costliest warp request: %llu %s for %d bytes a lane",
                static_cast<unsigned long long>(line.worst.units),
                emulated::is_shared(line.kind) ? "wavefronts" : "sectors", line.worst.bytes_per_lane);
    draw_warp_request(line, {ImGui::GetContentRegionAvail().x, 0});
  }

  // The roofline: predicted from the counted bytes, measured where this GPU or a recorded file has the size.
  Ceilings ceilings;
  if (ready(peaks_) && peaks_.get()) {
    ceilings = {peaks_.get()->copy_gbps, peaks_.get()->fp32_gflops, "ceilings measured on this GPU"};
  } else {
    for (const Recorded& rec : recorded_) {
      if (rec.report.peaks && rec.report.peaks->copy_gbps > 0 && rec.report.peaks->fp32_gflops > 0) {
        ceilings = {rec.report.peaks->copy_gbps, rec.report.peaks->fp32_gflops,
                    "ceilings recorded on " + rec.report.device.name};
        break;
      }
    }
  }
  if (ceilings.copy_gbps <= 0 || ceilings.fp32_gflops <= 0) return;
  const auto measured = [&](const std::string& variant) -> std::optional<double> {
    const auto match = [&](const Result& r) {
      return r.lesson == l.id && r.variant == variant && r.backend == Backend::gpu && r.problem.n == s.memory_n &&
             r.status == Status::passed && r.gflops > 0;
    };
    for (const Result& r : series_.live_results()) {
      if (match(r)) return r.gflops;
    }
    for (const Recorded& rec : recorded_) {
      for (const Result& r : rec.report.results) {
        if (match(r)) return r.gflops;
      }
    }
    return std::nullopt;
  };
  std::vector<RooflinePoint> points;
  std::vector<std::string> gaps;
  for (const Result* r : counted) {
    const Variant* v = nullptr;
    for (const Variant& x : l.variants) {
      if (x.name == r->variant) v = &x;
    }
    const double flops = (v != nullptr && v->counts ? v->counts(r->problem) : l.counts(r->problem)).flops;
    const double bytes = sector_bytes(*r);
    if (flops <= 0 || bytes <= 0) continue;
    RooflinePoint p{r->variant, flops / bytes, 0, measured(r->variant)};
    const double memory_bound = ceilings.copy_gbps * p.intensity;
    p.predicted_gflops = std::min(memory_bound, ceilings.fp32_gflops);
    points.push_back(p);
    const std::string prediction = memory_bound < ceilings.fp32_gflops
                                       ? fmt::format("predicted memory-bound at {:.1f} TB/s ({:.0f} GFLOP/s)",
                                                     ceilings.copy_gbps / 1000, p.predicted_gflops)
                                       : fmt::format("predicted compute-bound at {:.0f} GFLOP/s", p.predicted_gflops);
    gaps.push_back(p.measured_gflops
                       ? fmt::format("{}: {}, measured {:.0f} GFLOP/s = {:.1f} TB/s of sectors ({:.0f} % of the "
                                     "prediction)",
                                     r->variant, prediction, *p.measured_gflops,
                                     *p.measured_gflops / p.intensity / 1000,
                                     100 * *p.measured_gflops / p.predicted_gflops)
                       : fmt::format("{}: {}; no GPU measurement at n = {} (run it on a GPU)", r->variant, prediction,
                                     s.memory_n));
  }
  if (points.empty()) return;
  ImGui::Spacing();
  draw_roofline(points, ceilings, {ImGui::GetContentRegionAvail().x, 300});
  for (const std::string& g : gaps) ImGui::TextWrapped("%s", g.c_str());
  ImGui::TextDisabled(
      "Sectors are the traffic between the SMs and L1; caches serve repeats, so a kernel that re-reads data "
      "(naive matmul) runs above its predicted point.");
}

// The Nsight Compute profiles recorded for this lesson's kernels (a lesson that reads every
// profile, the profiling lesson: all of them), side by side, a section at a time.
void AppWindow::draw_profiles() {
  LessonState& s = state();
  const Lesson& l = *lesson_;
  std::vector<const Profile*> mine;
  for (const Profile& p : profiles_) {
    if (p.lesson == l.id || l.reads_every_profile) mine.push_back(&p);
  }
  if (mine.empty()) return;
  const std::string title = fmt::format("Nsight Compute profiles recorded on {} ({})###profiles", mine.front()->device,
                                        mine.front()->recorded);
  if (!ImGui::CollapsingHeader(title.c_str(), l.reads_every_profile ? ImGuiTreeNodeFlags_DefaultOpen : 0)) return;
  ImGui::TextWrapped(
      "What `ncu` says of each kernel's first launch (%s, driver %s): a section at a time, the kernels side by side. "
      "docs/lessons/11-profiling.md reads them; tools/record-profiles.py records your own on a GPU.",
      mine.front()->ncu.c_str(), mine.front()->driver.c_str());
  std::vector<std::string> sections;
  for (const Profile* p : mine) {
    for (const auto& [name, metrics] : p->sections) {
      if (std::find(sections.begin(), sections.end(), name) == sections.end()) sections.push_back(name);
    }
  }
  if (std::find(sections.begin(), sections.end(), s.profile_section) == sections.end())
    s.profile_section = sections.front();
  for (const std::string& name : sections) {
    if (&name != &sections.front()) ImGui::SameLine();
    if (ImGui::RadioButton(name.c_str(), s.profile_section == name)) s.profile_section = name;
  }
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("profiles", static_cast<int>(mine.size()) + 2, flags)) return;
  ImGui::TableSetupColumn("metric");
  ImGui::TableSetupColumn("unit");
  for (const Profile* p : mine) ImGui::TableSetupColumn(fmt::format("{} {}", p->lesson, p->variant).c_str());
  ImGui::TableHeadersRow();
  std::vector<std::pair<std::string, std::string>> rows;  // (metric, unit), in the first profile's order
  for (const Profile* p : mine) {
    if (const auto* metrics = p->section(s.profile_section)) {
      for (const ProfileMetric& m : *metrics) {
        if (std::none_of(rows.begin(), rows.end(), [&](auto& r) { return r.first == m.name; }))
          rows.emplace_back(m.name, m.unit);
      }
    }
  }
  for (const auto& [metric, unit] : rows) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(metric.c_str());
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", unit.c_str());
    for (const Profile* p : mine) {
      ImGui::TableNextColumn();
      const auto* metrics = p->section(s.profile_section);
      if (metrics == nullptr) continue;
      const auto m =
          std::find_if(metrics->begin(), metrics->end(), [&](const ProfileMetric& x) { return x.name == metric; });
      if (m != metrics->end()) ImGui::TextUnformatted(m->value.c_str());
    }
  }
  ImGui::EndTable();
}

// Per kernel: its launch (counted on the emulator), its registers and spills (recorded for sm_90),
// and the theoretical occupancy they allow on an H100, with what limits it.
void AppWindow::draw_kernel_facts(const std::vector<const Result*>& counted) {
  ImGui::Spacing();
  ImGui::TextUnformatted(
      "Kernel facts: the launch as the emulator saw it; registers and spills as nvcc built it for sm_90");
  const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("facts", 8, flags)) return;
  for (const char* h : {"variant", "kernel", "threads a block", "registers a thread", "static shared", "dynamic shared",
                        "spills (local memory)", "theoretical occupancy (H100)"}) {
    ImGui::TableSetupColumn(h);
  }
  ImGui::TableHeadersRow();
  for (const Result* r : counted) {
    for (const emulated::KernelTraffic& k : r->memory) {
      const auto f = kernel_facts_.find(qualified_kernel(state().kernels, k.kernel.substr(0, k.kernel.find('<'))));
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r->variant.c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(k.kernel.c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%u", k.threads_per_block);
      ImGui::TableNextColumn();
      if (f != kernel_facts_.end()) {
        ImGui::Text("%d", f->second.registers);
      } else {
        ImGui::TextDisabled("not recorded");
      }
      ImGui::TableNextColumn();
      ImGui::Text("%s B", thousands(k.static_shared_bytes).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%s B", thousands(k.dynamic_shared_bytes).c_str());
      ImGui::TableNextColumn();
      if (f != kernel_facts_.end()) {
        const std::uint64_t spills = f->second.local_bytes + f->second.stack_bytes;
        if (spills > 0) {
          ImGui::TextColored({1, 0.6f, 0.3f, 1}, "%llu B a thread", static_cast<unsigned long long>(spills));
        } else {
          ImGui::TextUnformatted("none");
        }
      }
      ImGui::TableNextColumn();
      const Occupancy o = theoretical_occupancy(k.threads_per_block, f != kernel_facts_.end() ? f->second.registers : 0,
                                                k.static_shared_bytes + k.dynamic_shared_bytes);
      ImGui::Text("%.0f %% (%d blocks an SM; limited by %s)", 100 * o.fraction, o.blocks_per_sm, o.limiter.c_str());
    }
  }
  ImGui::EndTable();
}

}  // namespace gpulab::app
