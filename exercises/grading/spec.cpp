// Reading exercise.json: see spec.hpp and exercises/README.md for the format.
#include "grading/spec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace gpulab::grading {

namespace fs = std::filesystem;

namespace {

// ---- expressions over the sizes: a small recursive-descent parser

class Expression {
 public:
  Expression(const std::string& text, const Sizes& sizes) : text_(text), sizes_(sizes) {}
  std::int64_t value() {
    const std::int64_t v = sum();
    skip();
    if (at_ < text_.size()) fail("unexpected '" + text_.substr(at_) + "'");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& why) const {
    throw std::invalid_argument("in the size expression \"" + text_ + "\": " + why);
  }
  void skip() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  bool eat(char c) {
    skip();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  std::int64_t sum() {
    std::int64_t v = product();
    for (;;) {
      if (eat('+')) {
        v += product();
      } else if (eat('-')) {
        v -= product();
      } else {
        return v;
      }
    }
  }
  std::int64_t product() {
    std::int64_t v = factor();
    for (;;) {
      if (eat('*')) {
        v *= factor();
      } else if (eat('/') || eat('%')) {
        const bool divide = text_[at_ - 1] == '/';
        const std::int64_t d = factor();
        if (d == 0) fail("division by zero");
        v = divide ? v / d : v % d;
      } else {
        return v;
      }
    }
  }
  std::int64_t factor() {
    skip();
    if (eat('(')) {
      const std::int64_t v = sum();
      if (!eat(')')) fail("a ')' is missing");
      return v;
    }
    if (eat('-')) return -factor();
    if (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_]))) {
      std::int64_t v = 0;
      while (at_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[at_])))
        v = v * 10 + (text_[at_++] - '0');
      return v;
    }
    std::string name;
    while (at_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_'))
      name += text_[at_++];
    if (name.empty()) fail(at_ < text_.size() ? "unexpected '" + std::string(1, text_[at_]) + "'" : "it ends early");
    if (name == "min" || name == "max") {
      if (!eat('(')) fail(name + " needs (a, b)");
      const std::int64_t a = sum();
      if (!eat(',')) fail(name + " needs (a, b)");
      const std::int64_t b = sum();
      if (!eat(')')) fail("a ')' is missing");
      return name == "min" ? std::min(a, b) : std::max(a, b);
    }
    const auto found = sizes_.find(name);
    if (found == sizes_.end()) fail("no size called " + name);
    return found->second;
  }

  const std::string& text_;
  const Sizes& sizes_;
  std::size_t at_ = 0;
};

std::string trim(std::string s) {
  const auto first = s.find_first_not_of(" \t\n");
  const auto last = s.find_last_not_of(" \t\n");
  return first == std::string::npos ? "" : s.substr(first, last - first + 1);
}

// "const float* __restrict__ a" → a parameter (its role comes later, from the spec).
Param parse_param(const std::string& text, const std::string& where) {
  std::string t = std::regex_replace(text, std::regex(R"(\b__restrict__\b|\b__restrict\b)"), " ");
  Param p;
  p.is_const = std::regex_search(t, std::regex(R"(\bconst\b)"));
  t = std::regex_replace(t, std::regex(R"(\bconst\b)"), " ");
  p.pointer = t.find('*') != std::string::npos;
  std::smatch m;
  if (!std::regex_match(t, m, std::regex(R"(\s*([A-Za-z_][A-Za-z_0-9 ]*?)\s*(\*?)\s*([A-Za-z_][A-Za-z_0-9]*)\s*)")))
    throw std::invalid_argument(where + ": cannot read the parameter \"" + trim(text) + "\"");
  p.element = std::regex_replace(trim(m[1].str()), std::regex(R"(\s+)"), " ");
  p.name = m[3].str();
  static const std::vector<std::string> known = {"float", "double", "int",         "unsigned int", "unsigned",
                                                 "long",  "size_t", "std::size_t", "unsigned char"};
  if (std::find(known.begin(), known.end(), p.element) == known.end())
    throw std::invalid_argument(where + ": parameter " + p.name + " has type " + p.element +
                                ", which the grader does not pass (float, double, int, unsigned int, long, size_t)");
  if (p.element == "unsigned") p.element = "unsigned int";
  p.type = p.element + (p.pointer ? "*" : "");
  return p;
}

Sizes sizes_of(const nlohmann::ordered_json& object, const std::string& where) {
  Sizes sizes;
  for (const auto& [key, value] : object.items()) {
    if (key == "catches" || key == "values") continue;
    if (!value.is_number_integer()) throw std::invalid_argument(where + ": size " + key + " must be an integer");
    sizes[key] = value.get<std::int64_t>();
  }
  return sizes;
}

}  // namespace

void complete_sizes(const Spec& spec, Case& c) {
  for (const auto& [name, expression] : spec.derived) c.sizes[name] = evaluate(expression, c.sizes);
}

std::int64_t evaluate(const std::string& expression, const Sizes& sizes) {
  return Expression(expression, sizes).value();
}

const Param* Spec::param(const std::string& wanted) const {
  for (const Param& p : params) {
    if (p.name == wanted) return &p;
  }
  return nullptr;
}

Spec read_spec(const fs::path& folder) {
  const fs::path file = folder / "exercise.json";
  const std::string where = file.string();
  std::ifstream in(file);
  if (!in) throw std::invalid_argument(where + ": cannot read it");
  nlohmann::ordered_json j;  // ordered: derived sizes are computed in the order written
  try {
    j = nlohmann::ordered_json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(where + ": not valid JSON: " + e.what());
  }
  Spec s;
  s.folder = folder;
  s.name = folder.filename().string();
  try {
    s.lesson = j.at("lesson").get<std::string>();
    s.title = j.at("title").get<std::string>();
    s.task = j.at("task").get<std::string>();
    s.entry = trim(j.at("entry").get<std::string>());
    if (!s.entry.empty() && s.entry.back() == ';') s.entry.pop_back();
    s.reference = j.at("reference").get<std::string>();
    s.tolerance = j.value("tolerance", 1.0);
    s.elementwise = j.value("elementwise", false);
    s.unwritten = j.value("unwritten", std::string{});
    s.points = j.value("points", 1.0);
    if (!(s.points > 0)) throw std::invalid_argument("\"points\" must be more than 0");
    s.time_limit_s = j.value("time_limit_s", 60.0);
    s.memory_limit_gb = j.value("memory_limit_gb", 4.0);
    s.file = j.value("file", std::string("exercise.cu"));
    s.solution = j.value("solution", std::string("solution.cu"));
    s.hints = j.value("hints", std::vector<std::string>{});
    if (j.contains("run")) {
      for (const auto& [name, expression] : j.at("run").items())
        s.run.emplace_back(name, expression.get<std::string>());
    }
    s.run_cost = j.value("run_cost", std::string{});
    if (j.contains("performance")) {
      const auto& perf = j.at("performance");
      Performance p;
      p.at.sizes = sizes_of(perf.at("sizes"), where);
      p.at.catches = "performance";
      p.at.inputs = perf.value("values", std::string("random"));
      p.bytes = perf.value("bytes", std::string{});
      p.flops = perf.value("flops", std::string{});
      p.bands = perf.at("bands").get<std::vector<std::pair<double, double>>>();
      if (p.bytes.empty() == p.flops.empty()) throw std::invalid_argument("performance needs bytes or flops (one)");
      if (p.bands.empty()) throw std::invalid_argument("performance needs bands: [[fraction of the peak, score], ...]");
      s.performance = p;
    }
    if (j.contains("efficiency")) {
      const auto& eff = j.at("efficiency");
      Efficiency e;
      e.at.sizes = sizes_of(eff.at("sizes"), where);
      e.at.catches = "efficiency";
      e.at.inputs = eff.value("values", std::string("random"));
      for (const auto& check : eff.at("checks")) {
        EfficiencyCheck c;
        c.measure = check.at("measure").get<std::string>();
        static const std::vector<std::string> known = {"global_load_efficiency", "global_store_efficiency",
                                                       "global_load_traffic", "shared_bank_conflicts"};
        if (std::find(known.begin(), known.end(), c.measure) == known.end())
          throw std::invalid_argument("efficiency measure \"" + c.measure + "\" is none the grader knows");
        c.lower_is_better = check.contains("at_most");
        c.bands = check.at(c.lower_is_better ? "at_most" : "at_least").get<std::vector<std::pair<double, double>>>();
        if (c.bands.empty()) throw std::invalid_argument("efficiency check " + c.measure + " needs bands");
        e.checks.push_back(std::move(c));
      }
      s.efficiency = e;
    }
    if (j.contains("derived")) {
      for (const auto& [name, expression] : j.at("derived").items())
        s.derived.emplace_back(name, expression.get<std::string>());
    }
    s.layout = j.value("layout", std::map<std::string, std::vector<std::string>>{});
    const auto arrays = j.at("arrays").get<std::map<std::string, std::string>>();
    const auto inout = j.value("inout", std::vector<std::string>{});
    const auto host = j.value("host", std::vector<std::string>{});

    std::smatch m;
    if (!std::regex_match(s.entry, m, std::regex(R"(\s*void\s+([A-Za-z_][A-Za-z_0-9]*)\s*\((.*)\)\s*;?\s*)")))
      throw std::invalid_argument("entry must be a signature: void name(type name, ...)");
    s.function = m[1].str();
    std::stringstream list(m[2].str());
    for (std::string part; std::getline(list, part, ',');) s.params.push_back(parse_param(part, where));
    for (Param& p : s.params) {
      if (!p.pointer) continue;
      const auto size = arrays.find(p.name);
      if (size == arrays.end()) throw std::invalid_argument("arrays must give the length of " + p.name);
      p.size = size->second;
      const bool updated = std::find(inout.begin(), inout.end(), p.name) != inout.end();
      if (p.is_const && updated) throw std::invalid_argument(p.name + " is const, so it cannot be inout");
      p.input = p.is_const || updated;
      p.host = std::find(host.begin(), host.end(), p.name) != host.end();
      p.output = !p.is_const;
    }
    if (std::none_of(s.params.begin(), s.params.end(), [](const Param& p) { return p.output; }))
      throw std::invalid_argument("the entry point writes no array (every pointer is const)");

    for (const auto& c : j.at("cases")) {
      Case one;
      one.sizes = sizes_of(c, where);
      one.catches = c.value("catches", std::string{});
      one.inputs = c.value("values", std::string("random"));
      s.cases.push_back(one);
    }
    if (j.contains("random")) {
      const auto& r = j.at("random");
      s.random.count = r.value("count", 2);
      for (const auto& [key, value] : r.items()) {
        if (key == "count") continue;
        if (value.is_array() && value.size() == 2 && key.rfind("one_of", 0) != 0) {
          s.random.ranges[key] = {value[0].get<std::int64_t>(), value[1].get<std::int64_t>()};
        } else if (value.is_object() && value.contains("one_of")) {
          s.random.choices[key] = value.at("one_of").get<std::vector<std::int64_t>>();
        } else {
          throw std::invalid_argument("random." + key + " must be [low, high] or {\"one_of\": [...]}");
        }
      }
    }
    if (s.performance) complete_sizes(s, s.performance->at);
    // Every case gives every size the entry point takes, and every array length can be computed.
    for (Case c : cases_for(s, 1)) {
      for (const Param& p : s.params) {
        if (!p.pointer && !c.sizes.contains(p.name))
          throw std::invalid_argument("a case does not give " + p.name + " (" + case_label(s, c) + ")");
        if (p.pointer) evaluate(p.size, c.sizes);
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(where + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    const std::string text = e.what();
    throw std::invalid_argument(text.rfind(where, 0) == 0 ? text : where + ": " + text);
  }
  return s;
}

std::vector<Spec> find_exercises(const fs::path& root) {
  std::vector<Spec> all;
  auto add = [&](const fs::path& folder) {
    all.push_back(read_spec(folder));
    all.back().root = root;
  };
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    if (!entry.is_directory()) continue;
    if (fs::exists(entry.path() / "exercise.json")) add(entry.path());
    std::error_code none;
    for (const auto& own : fs::directory_iterator(entry.path() / "exercises", none)) {
      if (own.is_directory() && fs::exists(own.path() / "exercise.json")) add(own.path());
    }
  }
  std::sort(all.begin(), all.end(), [](const Spec& a, const Spec& b) { return a.name < b.name; });
  return all;
}

std::vector<fs::path> Spec::buggy_files() const {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& found : fs::directory_iterator(folder / "buggy", ec)) {
    if (found.path().extension() == ".cu") files.push_back(found.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string Spec::shown_path() const {
  fs::path base = exercises_root().lexically_normal();
  if (!base.has_filename()) base = base.parent_path();  // "lessons/" names lessons
  return learner_file().lexically_normal().lexically_relative(base.parent_path()).generic_string();
}

std::vector<Case> cases_for(const Spec& spec, std::uint64_t seed) {
  std::vector<Case> all = spec.cases;
  // The exercise's own stream of the seed: another exercise's sizes do not move when one is added.
  std::seed_seq mix{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(std::hash<std::string>{}(spec.name))};
  std::mt19937_64 rng(mix);
  for (int i = 0; i < spec.random.count; ++i) {
    Case c;
    c.drawn = true;
    c.inputs = "random";
    c.catches = "sizes drawn at random";
    for (const auto& [name, range] : spec.random.ranges)
      c.sizes[name] = std::uniform_int_distribution<std::int64_t>(range.first, range.second)(rng);
    for (const auto& [name, list] : spec.random.choices)
      c.sizes[name] = list[std::uniform_int_distribution<std::size_t>(0, list.size() - 1)(rng)];
    all.push_back(c);
  }
  for (Case& c : all) complete_sizes(spec, c);
  return all;
}

std::string case_label(const Spec& spec, const Case& c) {
  std::string label;
  for (const Param& p : spec.params) {
    if (p.pointer) continue;
    const auto v = c.sizes.find(p.name);
    if (v == c.sizes.end()) continue;
    label += fmt::format("{}{} = {}", label.empty() ? "" : ", ", p.name, v->second);
  }
  if (c.inputs != "random") label += " (" + c.inputs + " inputs)";
  return label;
}

}  // namespace gpulab::grading
