// Grading a class: see gradebook.hpp.
#include "grading/gradebook.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

namespace gpulab::grading {

namespace fs = std::filesystem;

namespace {

// A message on one line, cut to `limit` characters (a gradebook cell, a log line).
std::string one_line(std::string text, std::size_t limit) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  if (text.size() > limit) text = text.substr(0, limit - 3) + "...";
  return text;
}

std::string failures_of(const Grade& g) {
  if (g.passed) return "";
  const auto failed = std::count_if(g.cases.begin(), g.cases.end(), [](const CaseResult& c) { return !c.passed; });
  if (g.cases.empty()) return one_line(g.message, 400);
  return fmt::format("{} of {} cases failed; first: {}", failed, g.cases.size(), one_line(g.message, 1200));
}

}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string gradescope_json(const std::vector<Grade>& grades) {
  nlohmann::json tests = nlohmann::json::array();
  double total = 0;
  for (const Grade& g : grades) {
    if (g.cases.empty()) {
      tests.push_back({{"name", g.exercise}, {"score", 0}, {"max_score", 1}, {"output", g.message}});
      continue;
    }
    for (const CaseResult& c : g.cases) {
      const double score = c.score >= 0 ? c.score : c.passed ? 1 : 0;
      total += score;
      std::string output = c.passed ? "passed" : c.message;
      if (!c.passed && !c.report.empty() && output.find(c.report) == std::string::npos) output += "\n\n" + c.report;
      tests.push_back({{"name", g.exercise + ": " + c.label + (c.catches.empty() ? "" : " — " + c.catches)},
                       {"score", score},
                       {"max_score", 1},
                       {"output", output}});
    }
  }
  const nlohmann::json results = {{"score", total}, {"tests", tests}};
  return results.dump(2) + "\n";
}

int grade_class(const std::vector<const Spec*>& exercises, const GradeOptions& options,
                const ClassOptions& class_options, std::ostream& log) {
  std::error_code ec;
  std::vector<fs::path> students;
  for (const auto& entry : fs::directory_iterator(class_options.submissions, ec)) {
    if (entry.is_directory()) students.push_back(entry.path());
  }
  if (ec) {
    log << "gpulab_grade: cannot read " << class_options.submissions << ": " << ec.message() << "\n";
    return 2;
  }
  std::sort(students.begin(), students.end());
  log << "Grading " << students.size() << " students on " << exercises.size() << " exercise"
      << (exercises.size() == 1 ? "" : "s") << ", on the " << to_string(options.backend) << " backend, seed "
      << options.seed << "\n";
  std::string csv = "student,exercise,passed,score,failures\n";
  for (const fs::path& student : students) {
    const std::string name = student.filename().string();
    std::vector<Grade> grades;
    for (const Spec* e : exercises) {
      const fs::path file = student / e->name / e->file;
      Grade g;
      if (!fs::exists(file, ec)) {
        g.exercise = e->name;
        g.title = e->title;
        g.file = file.string();
        g.message = "not handed in: no " + (fs::path(e->name) / e->file).string();
      } else {
        g = grade(*e, file, options);
      }
      log << fmt::format("  {:<16} {:<24} {:<7} {:.2f}  {}\n", name, e->name,
                         g.skipped  ? "skipped"
                         : g.passed ? "passed"
                                    : "FAILED",
                         g.score(), g.passed ? "" : one_line(g.message, 160));
      csv += fmt::format("{},{},{},{:.3f},{}\n", csv_field(name), csv_field(e->name), g.passed ? "yes" : "no",
                         g.score(), csv_field(failures_of(g)));
      grades.push_back(std::move(g));
    }
    if (class_options.gradescope) {
      std::ofstream out(student / "results.json");
      out << gradescope_json(grades);
      if (!out) {
        log << "gpulab_grade: cannot write " << (student / "results.json") << "\n";
        return 2;
      }
    }
  }
  if (!class_options.gradebook.empty()) {
    std::ofstream out(class_options.gradebook);
    out << csv;
    if (!out) {
      log << "gpulab_grade: cannot write the gradebook " << class_options.gradebook << "\n";
      return 2;
    }
    log << "The gradebook: " << class_options.gradebook.string() << "\n";
  }
  return 0;
}

}  // namespace gpulab::grading
