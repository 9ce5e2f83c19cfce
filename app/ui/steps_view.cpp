// Shared memory step by step (steps_view.hpp): the recording runs in the background; the picture
// is drawn from it every frame.
#include "ui/steps_view.hpp"

#include <fmt/format.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "ui/online_softmax_view.hpp"
#include "ui/plot.hpp"
#include "ui/view_helpers.hpp"

namespace gpulab::app {

namespace steps = emulated::shared_steps;

namespace {

// "after the barrier at reduction.cu:66" → "reduction.cu:66"; the file without its folders.
std::string short_place(const std::string& where) {
  const std::size_t slash = where.rfind('/');
  return slash == std::string::npos ? where : where.substr(slash + 1);
}

}  // namespace

std::size_t step_columns(const steps::ArrayInfo& info) {
  return info.extents.size() == 2 ? info.extents[1] : info.elements;
}

void draw_shared_steps(const steps::Trace& trace, std::uint32_t array, std::size_t first, std::size_t count,
                       ImVec2 size) {
  const steps::ArrayInfo& info = trace.arrays[array];
  const std::size_t phases = trace.after.size();
  if (phases == 0 || count == 0) return;
  // An array of K rows ([2][N], a double buffer: a phase reads one half and writes the other;
  // [8][N], a warp's own copy each) is drawn as one row of N: its values those of the copy the
  // phase wrote first, its bars (atomics) the writes to all copies.
  const bool folded = info.extents.size() == 2;
  const std::size_t columns = step_columns(info);
  const auto column_of = [&](std::uint32_t e) { return folded ? e % columns : std::size_t{e}; };
  const auto shown = [&](std::size_t c) { return c >= first && c < first + count; };
  const float label_w = 150, row_h = count <= 64 ? 22.0f : 12.0f, gap = count <= 64 ? 34.0f : 22.0f;
  const float bars_h = 70;  // a row with atomics draws each element's writes as a bar (log scale)
  // Which phases wrote an element more than once (atomics: contention), for their rows' height.
  std::vector<std::size_t> hottest(phases, 0);  // the most writes one element took in the phase
  std::vector<bool> contended(phases, false);
  for (std::uint32_t p = 0; p < phases; ++p) {
    hottest[p] = hottest_in(trace, p, array).writes;
    contended[p] = hottest[p] > 1;
  }
  std::vector<float> row_top(phases + 1, 0);
  for (std::size_t p = 0; p < phases; ++p) row_top[p + 1] = row_top[p] + gap + (contended[p] ? bars_h + 16 : row_h);
  const float cell = std::max(3.0f, (size.x - label_w - 8) / static_cast<float>(count));
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("steps", {label_w + cell * static_cast<float>(count) + 4, row_top[phases] + 4});
  const bool hovered = ImGui::IsItemHovered();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const auto x_of = [&](std::size_t c) { return origin.x + label_w + static_cast<float>(c - first) * cell; };
  const auto top_of = [&](std::size_t p) { return origin.y + row_top[p] + gap - 6; };
  const bool values_fit = cell >= 38;
  std::string tip;
  std::size_t half = 0;  // the half of a double buffer the row shows
  for (std::size_t p = 0; p < phases; ++p) {
    const std::vector<StepOperation> ops = operations_in(trace, static_cast<std::uint32_t>(p), array);
    // Per column: its one writer, how many writes (several: atomics — contention), from how many
    // warps, and whether anything read it.
    std::vector<const StepOperation*> writer(count, nullptr);
    std::vector<std::size_t> writes(count, 0);
    std::vector<std::set<std::uint32_t>> warps(count);
    std::vector<bool> read(count, false);
    bool half_set = false;
    for (const steps::Access& a : trace.accesses) {
      if (a.phase != p || a.array != array) continue;
      if (a.write && folded && !half_set) half = a.element / columns, half_set = true;
      const std::size_t c = column_of(a.element);
      if (!shown(c)) continue;
      if (a.write) {
        ++writes[c - first];
        warps[c - first].insert(a.thread / 32);
      } else {
        read[c - first] = true;
      }
    }
    std::size_t most = 0;
    for (const std::size_t w : writes) most = std::max(most, w);
    const bool contention = contended[p];  // several writes to one element between two barriers
    const float h = contention ? bars_h : row_h;
    for (const StepOperation& op : ops) {
      for (const auto& [e, bits] : op.writes) {
        if (shown(column_of(e))) writer[column_of(e) - first] = &op;
      }
    }
    const float y = top_of(p);
    const bool last = trace.barriers[p] == steps::kBlockEnd;
    draw->AddText({origin.x, y + h / 2 - 7}, IM_COL32(220, 220, 220, 255),
                  p == 0 ? "before barrier 1" : fmt::format("after {} barrier{}", p, p == 1 ? "" : "s").c_str());
    if (!last) {
      draw->AddText({origin.x, y + h / 2 + 5}, IM_COL32(150, 150, 150, 255), short_place(trace.barriers[p]).c_str());
    }
    // Lines: from each element a writing thread read (in the row above: the value before this
    // phase) to the element it wrote.
    if (p > 0 && !contention) {
      const float from_y = top_of(p - 1) + (contended[p - 1] ? bars_h : row_h), to_y = y;
      for (const StepOperation& op : ops) {
        for (const auto& [w, wbits] : op.writes) {
          if (!shown(column_of(w))) continue;
          const float to_x = x_of(column_of(w)) + cell / 2;
          for (const auto& [r, rbits] : op.reads) {
            const std::size_t c = column_of(r);
            const float from_x = shown(c) ? x_of(c) + cell / 2 : (c < first ? x_of(first) : x_of(first + count));
            draw->AddLine({from_x, from_y}, {to_x, to_y}, series_colour(op.thread / 32, shown(c) ? 0.8f : 0.35f),
                          count <= 64 ? 1.5f : 1.0f);
          }
        }
      }
    }
    const std::vector<std::uint32_t>& words = trace.after[p][array];
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t c = first + i, e = folded ? half * columns + c : c;
      ImVec2 a{x_of(c), y}, b{x_of(c) + cell - 1, y + h};
      ImU32 fill = writer[i] != nullptr ? series_colour(writer[i]->thread / 32, 0.9f)
                   : read[i]            ? IM_COL32(80, 80, 92, 255)
                                        : IM_COL32(44, 44, 50, 255);
      if (contention) {  // a bar: how many writes queued at this element (log scale), coloured by it
        const float t = std::log2(static_cast<float>(writes[i]) + 1) / std::log2(static_cast<float>(most) + 1);
        fill = IM_COL32(static_cast<int>(90 + 150 * t), static_cast<int>(110 - 50 * t), static_cast<int>(140 - 90 * t),
                        255);
        draw->AddRectFilled(a, b, IM_COL32(34, 34, 40, 255));
        a.y = b.y - std::max(writes[i] > 0 ? 2.0f : 0.0f, t * h);
      }
      draw->AddRectFilled(a, b, fill);
      a.y = y;
      if (values_fit && e < words.size()) {
        const std::string v = format_step_value(words[e], info.type);
        const ImVec2 t = ImGui::CalcTextSize(v.c_str());
        if (t.x < cell - 2) draw->AddText({a.x + (cell - t.x) / 2, a.y + (h - t.y) / 2}, IM_COL32_WHITE, v.c_str());
      }
      if (hovered && mouse.x >= a.x && mouse.x < b.x + 1 && mouse.y >= a.y && mouse.y < b.y) {
        draw->AddRect(a, b, IM_COL32_WHITE, 0, 0, 2);
        tip = fmt::format("{}[{}] = {} when {}", info.name, folded ? fmt::format("{}][{}", half, c) : std::to_string(c),
                          e < words.size() ? format_step_value(words[e], info.type) : "?",
                          last ? "the block ended"
                               : "barrier " + std::to_string(p + 1) + " fell (" + short_place(trace.barriers[p]) + ")");
        if (contention && writes[i] > 0) {
          tip += fmt::format(
              "\n{} writes (atomics) from {} warp{} in this phase{}: each waits for the one before it "
              "at the same address",
              writes[i], warps[i].size(), warps[i].size() == 1 ? "" : "s",
              folded ? fmt::format(", over all {} copies", info.extents[0]) : "");
        } else if (const StepOperation* op = writer[i]) {
          tip += fmt::format("\nwritten by thread {} (warp {})", op->thread, op->thread / 32);
          std::string reads;
          for (const auto& [r, bits] : op->reads) {
            reads += fmt::format("{}{}[{}] = {}", reads.empty() ? "" : ", ", info.name, r,
                                 format_step_value(bits, info.type));
          }
          if (!reads.empty()) tip += ", which read " + reads;
        } else {
          tip += "\nnot written in this phase";
        }
      }
    }
    if (contention) {
      draw->AddText({x_of(first), y + h + 2}, IM_COL32(230, 150, 120, 255),
                    fmt::format("atomics: each bar is the writes to one {} in this phase (log scale), which "
                                "wait for each other; the hottest element took {}",
                                folded ? fmt::format("column (all {} copies)", info.extents[0]) : "element", hottest[p])
                        .c_str());
    }
  }
  if (!tip.empty()) ImGui::SetTooltip("%s", tip.c_str());
}

void StepsView::record(const Lesson& lesson, State& s) {
  recording_for_ = lesson.id;
  recording_softmax_ = lesson.steps->picture == SharedMemorySteps::Picture::online_softmax;
  future_ = std::async(std::launch::async, [&lesson, v = s.variant, text = std::string(s.problem)] {
    return record_shared_steps(lesson, v, steps_problem_of(lesson, text), 1);
  });
}

void StepsView::draw(const Lesson& l) {
  State& s = states_[l.id];
  if (s.variant.empty()) {
    s.variant = l.steps->variants.front();
    std::snprintf(s.problem, sizeof s.problem, "%s", l.steps->problem.c_str());
  }
  const bool softmax = l.steps->picture == SharedMemorySteps::Picture::online_softmax;
  ImGui::TextWrapped(
      "%s", softmax
                ? "The online softmax step by step, from the emulator's real execution: the fused kernel runs once at "
                  "this shape and its first block is recorded — 8 warps, a query each, tile after tile of 32 keys. A "
                  "row is a tile: its scores, the running maximum m, the factor e^(m_old - m) that rescales what was "
                  "summed before whenever m grows, the running sum l, and how far the output so far is from the exact "
                  "answer. Hover a key or an output cell."
                : "Shared memory step by step, from the emulator's real execution: the variant runs once at this size "
                  "and block 0 of each launch is recorded — every thread's reads and writes, and the whole array each "
                  "time a __syncthreads() falls. A row is the array after a phase; the elements written in it are "
                  "coloured by the writing thread's warp, with lines from the elements that thread read (the row above "
                  "holds their values). Hover a cell.");
  for (const std::string& v : l.steps->variants) {
    if (ImGui::RadioButton(v.c_str(), s.variant == v) && s.variant != v) {
      s.variant = v;
      s.launch = 0, s.array = -1;
      if (idle()) record(l, s);
    }
    ImGui::SameLine();
  }
  ImGui::SetNextItemWidth(140);
  ImGui::InputText(l.parse_shape ? "n or shape" : "n", s.problem, sizeof s.problem);
  if (ImGui::IsItemHovered() && l.parse_shape) ImGui::SetTooltip("%s", l.shape_help.c_str());
  ImGui::SameLine();
  ImGui::BeginDisabled(!idle());
  const bool first = !s.recording && s.error.empty() && idle();
  if (ImGui::Button("Record (emulated)") || first) {
    s.launch = 0, s.array = -1;
    record(l, s);
  }
  ImGui::EndDisabled();
  if (ready(future_)) {
    State& target = states_[recording_for_];
    try {
      target.recording = future_.get();
      target.error.clear();
      target.softmax.reset();
      if (recording_softmax_) target.softmax = online_softmax_steps(*target.recording);
    } catch (const std::exception& e) {
      target.recording.reset();
      target.error = e.what();
    }
  }
  if (!idle()) {
    ImGui::SameLine();
    ImGui::TextDisabled("recording…");
  }
  if (!s.error.empty()) ImGui::TextColored({1, 0.4f, 0.4f, 1}, "%s", s.error.c_str());
  if (!s.recording) return;
  const StepRecording& r = *s.recording;
  if (s.softmax) {
    ImGui::Text("%s, %s: block 0 of %s (queries 0 to %zu of the first head), head_dim %zu", r.variant.c_str(),
                problem_label(r.problem).c_str(), s.softmax->kernel.c_str(), s.softmax->queries.size() - 1,
                s.softmax->head_dim);
    ImGui::BeginChild("softmax_picture", {0, 0}, true, ImGuiWindowFlags_HorizontalScrollbar);
    draw_online_softmax(*s.softmax, s.query);
    ImGui::EndChild();
    return;
  }
  if (r.traces.empty()) {
    ImGui::TextWrapped("No launch of %s used shared memory at this size.", r.variant.c_str());
    return;
  }
  s.launch = std::clamp(s.launch, 0, static_cast<int>(r.traces.size()) - 1);
  const steps::Trace& t = r.traces[static_cast<std::size_t>(s.launch)];
  if (r.traces.size() > 1) {  // several launches used shared memory: which one to show
    for (std::size_t i = 0; i < r.traces.size(); ++i) {
      if (ImGui::RadioButton(fmt::format("{}##launch{}", r.traces[i].kernel, i).c_str(),
                             s.launch == static_cast<int>(i)))
        s.launch = static_cast<int>(i), s.array = -1;
      ImGui::SameLine();
    }
    ImGui::NewLine();
  }
  const std::uint32_t array = s.array >= 0 && static_cast<std::size_t>(s.array) < t.arrays.size()
                                  ? static_cast<std::uint32_t>(s.array)
                                  : main_array(t);
  const steps::ArrayInfo& info = t.arrays[array];
  ImGui::Text("%s, %s: block 0 of %s, %u threads; '%s' (%zu × %s), %zu phases", r.variant.c_str(),
              problem_label(r.problem).c_str(), t.kernel.c_str(), t.threads, info.name.c_str(), info.elements,
              info.type.c_str(), t.after.size());
  for (std::size_t a = 0; a < t.arrays.size() && t.arrays.size() > 1; ++a) {
    ImGui::SameLine();
    if (ImGui::RadioButton(t.arrays[a].name.c_str(), a == array)) s.array = static_cast<int>(a);
  }
  ImGui::Checkbox("32 elements at a time", &s.window);
  const int elements = static_cast<int>(step_columns(info));
  std::size_t first_shown = 0, count = step_columns(info);
  if (s.window && elements > 32) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(300);
    ImGui::SliderInt("first element", &s.first, 0, elements - 32);
    s.first = std::clamp(s.first, 0, elements - 32);
    first_shown = static_cast<std::size_t>(s.first), count = 32;
  }
  ImGui::BeginChild("steps_picture", {0, 0}, true, ImGuiWindowFlags_HorizontalScrollbar);
  draw_shared_steps(t, array, first_shown, count, ImGui::GetContentRegionAvail());
  ImGui::EndChild();
}

}  // namespace gpulab::app
