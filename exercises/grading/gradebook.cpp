// Grading a class: see gradebook.hpp.
#include "grading/gradebook.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "grading/sandbox.hpp"

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

std::string case_output(const Grade& g, const CaseResult& c) {
  if (c.passed && g.case_score(c) == 0) return "passed, but a case with nothing to compute earns nothing alone";
  if (c.passed) return c.score >= 0 ? c.message : "passed";
  std::string output = c.message;
  if (!c.report.empty() && output.find(c.report) == std::string::npos) output += "\n\n" + c.report;
  return output;
}

nlohmann::json course_tests(const std::vector<Grade>& grades, double& total) {
  nlohmann::json tests = nlohmann::json::array();
  total = 0;
  for (const Grade& g : grades) {
    if (g.cases.empty()) {
      tests.push_back({{"name", g.exercise}, {"score", 0}, {"max_score", g.points}, {"output", g.message}});
      continue;
    }
    const double each = g.points / static_cast<double>(g.cases.size());
    for (std::size_t i = 0; i < g.cases.size(); ++i) {
      const CaseResult& c = g.cases[i];
      const double score = each * g.case_score(c);
      total += score;
      std::string output = case_output(g, c);
      // The compiler's messages go with the first case of a file that did not build.
      if (i == 0 && !g.build_log.empty() && c.message == "did not compile") output = g.message;
      tests.push_back({{"name", g.exercise + ": " + c.label + (c.catches.empty() ? "" : " — " + c.catches)},
                       {"score", score},
                       {"max_score", each},
                       {"output", output}});
    }
  }
  return tests;
}

}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string gradescope_json(const std::vector<Grade>& grades) {
  double total = 0;
  nlohmann::json tests = course_tests(grades, total);
  for (auto& t : tests) t["visibility"] = "visible";
  nlohmann::json results = {{"score", total}, {"tests", tests}, {"visibility", "visible"}};
  // Where performance was graded (on a GPU), Gradescope's leaderboard: the rate each exercise reached.
  nlohmann::json leaderboard = nlohmann::json::array();
  for (const Grade& g : grades) {
    for (const CaseResult& c : g.cases) {
      if (c.rate >= 0)
        leaderboard.push_back({{"name", g.exercise + " (" + c.rate_unit + ")"}, {"value", c.rate}, {"order", "desc"}});
    }
  }
  if (!leaderboard.empty()) results["leaderboard"] = leaderboard;
  const bool sandboxed = std::all_of(grades.begin(), grades.end(), [](const Grade& g) { return g.sandboxed; });
  if (!sandboxed) results["output"] = std::string(kNotSandboxed) + " — " + sandbox_support().why_not;
  return results.dump(2) + "\n";
}

// Where a student handed in .cu files under other names, the hint that says so.
std::string misnamed_hint(const fs::path& folder, const Spec& e) {
  std::error_code ec;
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (entry.path().extension() == ".cu") found.push_back(entry.path().filename().string());
  }
  if (found.empty()) return "";
  std::sort(found.begin(), found.end());
  std::string names;
  for (const std::string& f : found) names += (names.empty() ? "" : ", ") + f;
  return " (found " + names + ": the grader reads only " + e.file + " — rename your file to " + e.file + ")";
}

std::vector<Grade> grade_student(const std::vector<const Spec*>& exercises, const fs::path& student,
                                 const GradeOptions& options) {
  std::vector<Grade> grades;
  std::error_code ec;
  for (const Spec* e : exercises) {
    fs::path file = student / e->name / e->file;
    // A platform's upload of one file for one exercise lies in the submission's folder itself.
    if (!fs::exists(file, ec) && exercises.size() == 1 && fs::exists(student / e->file, ec)) file = student / e->file;
    if (fs::exists(file, ec)) {
      grades.push_back(grade(*e, file, options));
      continue;
    }
    Grade g;
    g.exercise = e->name;
    g.title = e->title;
    g.lesson = e->lesson;
    g.file = file.string();
    g.points = e->points;
    g.handed_in = false;
    const fs::path where = exercises.size() == 1 && !fs::exists(student / e->name, ec) ? student : student / e->name;
    g.message = "not handed in: no " +
                (exercises.size() == 1 ? fs::path(e->file) : fs::path(e->name) / e->file).string() +
                misnamed_hint(where, *e);
    grades.push_back(std::move(g));
  }
  return grades;
}

std::string prairielearn_json(const std::vector<Grade>& grades) {
  double total = 0, most = 0;
  nlohmann::json tests = course_tests(grades, total);
  nlohmann::json pl_tests = nlohmann::json::array();
  for (const auto& t : tests) {
    most += t["max_score"].get<double>();
    pl_tests.push_back({{"name", t["name"]},
                        {"points", t["score"]},
                        {"max_points", t["max_score"]},
                        {"message", t["score"] == t["max_score"] ? "passed" : "failed"},
                        {"output", t["output"]}});
  }
  std::string message;
  for (const Grade& g : grades) message += (message.empty() ? "" : "\n") + g.exercise + ": " + g.message;
  const bool sandboxed = std::all_of(grades.begin(), grades.end(), [](const Grade& g) { return g.sandboxed; });
  const nlohmann::json results = {
      {"gradable", true},
      {"score", most > 0 ? total / most : 0.0},
      {"message", message},
      {"output", sandboxed ? "" : std::string(kNotSandboxed) + " — " + sandbox_support().why_not},
      {"tests", pl_tests}};
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
  // A shard k of n takes every n-th student from the k-th: shards on a cluster share nothing.
  if (class_options.shards > 1) {
    std::vector<fs::path> mine;
    for (std::size_t i = class_options.shard; i < students.size(); i += class_options.shards)
      mine.push_back(students[i]);
    students = std::move(mine);
  }
  log << "Grading " << students.size() << " students on " << exercises.size() << " exercise"
      << (exercises.size() == 1 ? "" : "s") << ", on the " << to_string(options.backend) << " backend, seed "
      << options.seed
      << (class_options.shards > 1 ? fmt::format(", shard {} of {}", class_options.shard + 1, class_options.shards)
                                   : "")
      << "\n";
  if (!sandbox_support().available) log << "WARNING: " << kNotSandboxed << " — " << sandbox_support().why_not << "\n";

  // Students in parallel (each case is a process of its own; the threads only wait for them).
  std::vector<std::vector<Grade>> graded(students.size());
  std::atomic<std::size_t> next{0};
  std::mutex log_mutex;
  std::size_t done = 0, failures = 0;
  const auto start = std::chrono::steady_clock::now();
  auto worker = [&] {
    for (std::size_t i = next++; i < students.size(); i = next++) {
      graded[i] = grade_student(exercises, students[i], options);
      std::lock_guard lock(log_mutex);
      const std::string name = students[i].filename().string();
      if (class_options.progress) log << "\r\033[K";
      for (const Grade& g : graded[i]) {
        failures += g.passed || g.skipped ? 0 : 1;
        log << fmt::format("  {:<16} {:<24} {:<7} {:.2f}  {}\n", name, g.exercise,
                           g.skipped  ? "skipped"
                           : g.passed ? "passed"
                                      : "FAILED",
                           g.score(), g.passed ? "" : one_line(g.message, 160));
      }
      ++done;
      if (class_options.progress) {
        const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double left = spent / static_cast<double>(done) * static_cast<double>(students.size() - done);
        log << fmt::format("[{} of {} students, {} exercises failed so far, about {:.0f} s left]", done,
                           students.size(), failures, left)
            << std::flush;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < std::max(1, class_options.jobs); ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  if (class_options.progress) log << "\r\033[K";

  std::string csv = std::string(kGradebookHeader);
  for (std::size_t i = 0; i < students.size(); ++i) {
    const std::string name = students[i].filename().string();
    for (const Grade& g : graded[i]) {
      csv += fmt::format("{},{},{},{:.3f},{:.3f},{:g},{},{}\n", csv_field(name), csv_field(g.exercise),
                         g.passed ? "yes" : "no", g.score(), g.score() * g.points, g.points, g.sandboxed ? "yes" : "NO",
                         csv_field(failures_of(g)));
    }
    if (class_options.gradescope) {
      std::ofstream out(students[i] / "results.json");
      out << gradescope_json(graded[i]);
      if (!out) {
        log << "gpulab_grade: cannot write " << (students[i] / "results.json") << "\n";
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

int merge_gradebooks(const std::vector<fs::path>& shards, const fs::path& into, std::ostream& log) {
  std::vector<std::string> rows;
  for (const fs::path& shard : shards) {
    std::ifstream in(shard);
    std::string line;
    if (!in || !std::getline(in, line) || line + "\n" != kGradebookHeader) {
      log << "gpulab_grade: " << shard << " is no gradebook of gpulab_grade (its first line differs)\n";
      return 2;
    }
    // A row may run over several lines (a quoted failure): rows are kept whole by counting quotes.
    std::string row;
    while (std::getline(in, line)) {
      row += line + "\n";
      if (std::count(row.begin(), row.end(), '"') % 2 == 0) {
        rows.push_back(row);
        row.clear();
      }
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const std::string& a, const std::string& b) {
    return a.substr(0, a.find(',')) < b.substr(0, b.find(','));
  });
  std::ofstream out(into);
  out << kGradebookHeader;
  for (const std::string& row : rows) out << row;
  if (!out) {
    log << "gpulab_grade: cannot write the gradebook " << into << "\n";
    return 2;
  }
  log << "Merged " << shards.size() << " gradebooks (" << rows.size() << " rows) into " << into.string() << "\n";
  return 0;
}

}  // namespace gpulab::grading
