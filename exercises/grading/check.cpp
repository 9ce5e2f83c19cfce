// Checking outputs and describing what is wrong: see check.hpp.
#include "grading/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "common/verify.hpp"

namespace gpulab::grading {

namespace {

// The value an element of type `element` holds when every byte is still the driver's poison.
template <typename T>
double poisoned() {
  T t;
  std::memset(&t, kPoisonByte, sizeof t);
  return static_cast<double>(t);
}
double poison_of(const std::string& element) {
  if (element == "float") return poisoned<float>();
  if (element == "double") return poisoned<double>();
  if (element == "unsigned char") return poisoned<unsigned char>();
  if (element == "int") return poisoned<int>();
  if (element == "unsigned int") return poisoned<unsigned int>();
  if (element == "long") return poisoned<long>();
  return poisoned<std::size_t>();
}

std::string ordinal(std::int64_t k) {
  if (k == 2) return "2nd";
  if (k == 3) return "3rd";
  return std::to_string(k) + "th";
}

std::string plural(const std::string& label) {
  if (label.empty()) return label;
  if (label.back() == 'x' || label.back() == 's') return label + "es";
  return label + "s";
}

// The coordinates one dimension's wrong elements take, described ("rows 16–31 (the last 16 of 32)").
std::string describe_axis(const std::string& label, std::int64_t extent, const std::set<std::int64_t>& values) {
  const std::int64_t lo = *values.begin(), hi = *values.rbegin();
  const auto count = static_cast<std::int64_t>(values.size());
  if (count == extent) return "every " + label;
  if (count == 1) {
    std::string text = label + " " + std::to_string(lo);
    if (extent > 1 && lo == extent - 1) text += " (the last)";
    if (extent > 1 && lo == 0) text += " (the first)";
    return text;
  }
  if (hi - lo + 1 == count) {  // one run
    std::string text = fmt::format("{} {}–{}", plural(label), lo, hi);
    if (hi == extent - 1) text += fmt::format(" (the last {} of {})", count, extent);
    if (lo == 0) text += fmt::format(" (the first {} of {})", count, extent);
    return text;
  }
  // Evenly spaced?
  const std::int64_t step = *std::next(values.begin()) - lo;
  bool even = step > 1;
  std::int64_t previous = lo;
  for (auto it = std::next(values.begin()); even && it != values.end(); ++it) {
    even = *it - previous == step;
    previous = *it;
  }
  if (even) return fmt::format("every {} {} from {} to {}", ordinal(step), label, lo, hi);
  return fmt::format("{} {} of the {} {} between {} and {}", count, plural(label), extent, plural(label), lo, hi);
}

std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.9g}", v);
}

}  // namespace

std::vector<std::pair<std::string, std::int64_t>> dims_of(const Spec& spec, const std::string& output,
                                                          const Sizes& sizes) {
  std::vector<std::pair<std::string, std::int64_t>> dims;
  const auto layout = spec.layout.find(output);
  if (layout != spec.layout.end()) {
    for (const std::string& d : layout->second) {
      const auto colon = d.find(':');
      const std::string label = colon == std::string::npos ? d : d.substr(0, colon);
      const std::string extent = colon == std::string::npos ? d : d.substr(colon + 1);
      dims.emplace_back(label, evaluate(extent, sizes));
    }
    return dims;
  }
  const Param* p = spec.param(output);
  dims.emplace_back("element", p != nullptr ? evaluate(p->size, sizes) : 0);
  return dims;
}

std::string where_wrong(const std::vector<std::pair<std::string, std::int64_t>>& dims,
                        const std::vector<std::size_t>& wrong) {
  if (wrong.empty()) return "";
  // A matrix right only in its top-left corner: the grid stopped short both across and down (a
  // count rounded down), which "every row, every column" would hide.
  if (dims.size() == 2 && dims[0].second > 1 && dims[1].second > 1) {
    const std::int64_t rows = dims[0].second, cols = dims[1].second;
    std::vector<bool> bad(static_cast<std::size_t>(rows * cols), false);
    for (const std::size_t flat : wrong) {
      if (flat < bad.size()) bad[flat] = true;
    }
    std::int64_t right_rows = 0, right_cols = 0;
    while (right_cols < cols && !bad[static_cast<std::size_t>(right_cols)]) ++right_cols;
    while (right_rows < rows && !bad[static_cast<std::size_t>(right_rows * cols)]) ++right_rows;
    const bool corner = right_rows > 0 && right_cols > 0 && right_rows < rows && right_cols < cols &&
                        static_cast<std::int64_t>(wrong.size()) == rows * cols - right_rows * right_cols;
    if (corner) {
      bool shape = true;
      for (std::int64_t r = 0; r < right_rows && shape; ++r)
        for (std::int64_t c = 0; c < right_cols && shape; ++c) shape = !bad[static_cast<std::size_t>(r * cols + c)];
      if (shape) {
        std::set<std::int64_t> last_rows, last_cols;
        for (std::int64_t r = right_rows; r < rows; ++r) last_rows.insert(r);
        for (std::int64_t c = right_cols; c < cols; ++c) last_cols.insert(c);
        return fmt::format("all but the top-left {} × {} corner: {} and {}", right_rows, right_cols,
                           describe_axis(dims[0].first, rows, last_rows),
                           describe_axis(dims[1].first, cols, last_cols));
      }
    }
  }
  std::vector<std::set<std::int64_t>> seen(dims.size());
  for (const std::size_t flat : wrong) {
    auto rest = static_cast<std::int64_t>(flat);
    for (std::size_t d = dims.size(); d-- > 0;) {
      const std::int64_t extent = std::max<std::int64_t>(1, dims[d].second);
      seen[d].insert(rest % extent);
      rest /= extent;
    }
  }
  std::string text;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (dims[d].second <= 1) continue;
    text += (text.empty() ? "" : ", ") + describe_axis(dims[d].first, dims[d].second, seen[d]);
  }
  return text.empty() ? "the only element" : text;
}

CaseCheck check_outputs(const Spec& spec, const CaseData& data, const std::map<std::string, std::vector<double>>& got,
                        const std::map<std::string, Expected>& expected, bool launch_stopped) {
  CaseCheck result;
  result.passed = true;
  std::vector<std::string> right, wrong_texts;
  for (const Param& p : spec.params) {
    if (!p.output) continue;
    const auto e = expected.find(p.name);
    const auto g = got.find(p.name);
    if (e == expected.end() || g == got.end()) continue;
    const std::vector<double>& values = g->second;
    const Expected& want = e->second;
    const double poison = poison_of(p.element);
    OutputCheck out{p.name, values.size(), 0, 0};
    std::vector<std::size_t> wrong;
    for (std::size_t i = 0; i < values.size() && i < want.value.size(); ++i) {
      const double v = values[i], x = want.value[i];
      const bool ok = std::isnan(x) ? std::isnan(v) : std::abs(v - x) <= want.bound[i] * spec.tolerance;
      if (ok) continue;
      wrong.push_back(i);
      if (v == poison) ++out.unwritten;
    }
    out.wrong = wrong.size();
    result.outputs.push_back(out);
    if (wrong.empty()) {
      right.push_back(p.name);
      continue;
    }
    result.passed = false;
    const auto dims = dims_of(spec, p.name, data.sizes);
    // The first wrong element, by its coordinates.
    const std::size_t first = wrong.front();
    std::string at;
    {
      std::vector<std::int64_t> coordinate(dims.size());
      auto rest = static_cast<std::int64_t>(first);
      for (std::size_t d = dims.size(); d-- > 0;) {
        const std::int64_t extent = std::max<std::int64_t>(1, dims[d].second);
        coordinate[d] = rest % extent;
        rest /= extent;
      }
      if (dims.size() == 1) {
        at = fmt::format("{}[{}]", p.name, first);
      } else {
        for (std::size_t d = 0; d < dims.size(); ++d)
          at += fmt::format("{}{} {}", at.empty() ? "" : ", ", dims[d].first, coordinate[d]);
        at = fmt::format("{}[{}] ({})", p.name, first, at);
      }
    }
    std::string what;
    const double v = values[first], x = want.value[first];
    if (v == poison) {
      what = at + " was never written (it still holds the poison the grader filled it with)";
    } else {
      what = fmt::format("{} is {}, expected {}", at, number(v), number(x));
      if (!std::isnan(x) && !std::isnan(v))
        what +=
            fmt::format(" (off by {:.3g}; the bound is {:.3g})", std::abs(v - x), want.bound[first] * spec.tolerance);
    }
    if (spec.elementwise) {
      std::string from;
      for (const Param& in : spec.params) {
        if (!in.pointer || !in.input) continue;
        const auto& a = data.arrays.at(in.name);
        if (a.size() == values.size())
          from += fmt::format("{}{}[{}] = {}", from.empty() ? "" : ", ", in.name, first, number(a[first]));
      }
      if (!from.empty()) what += ", from " + from;
    }
    std::string text = fmt::format("{}: {} of {} elements wrong{}. First: {}.", p.name, out.wrong, out.checked,
                                   out.unwritten == out.wrong ? ", none of them written" : "", what);
    if (out.checked > 1 && (out.wrong > 1 || dims.size() > 1))
      text += " The wrong elements: " + where_wrong(dims, wrong) + ".";
    if (out.unwritten > 0 && launch_stopped) {
      text +=
          " The checked mode stopped a launch at its error: the elements it had not reached were never written, "
          "which says nothing about your grid.";
    } else if (out.unwritten > 0 && !spec.unwritten.empty()) {
      std::string hint = spec.unwritten;
      for (const auto& [name, value] : data.sizes) {
        const std::string key = "{" + name + "}";
        for (std::size_t at_key = hint.find(key); at_key != std::string::npos; at_key = hint.find(key))
          hint.replace(at_key, key.size(), std::to_string(value));
      }
      text += " " + hint;
    }
    wrong_texts.push_back(text);
  }
  if (!result.passed) {
    for (const std::string& t : wrong_texts) result.message += (result.message.empty() ? "" : " ") + t;
    if (!right.empty()) {
      std::string list;
      for (const std::string& r : right) list += (list.empty() ? "" : " and ") + r;
      result.message += fmt::format(" ({} {} right.)", list, right.size() == 1 ? "is" : "are");
    }
  }
  return result;
}

}  // namespace gpulab::grading
