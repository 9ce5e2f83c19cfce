// A grade as the grader prints it and writes it: text for a person, JSON for a course's tools.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "grading/grading.hpp"
#include "grading/sandbox.hpp"

namespace gpulab::grading {

std::string report_json(const std::vector<Grade>& grades) {
  nlohmann::json all = nlohmann::json::array();
  bool every = !grades.empty();
  for (const Grade& g : grades) {
    nlohmann::json cases = nlohmann::json::array();
    for (const CaseResult& c : g.cases) {
      cases.push_back({{"size", c.label},
                       {"catches", c.catches},
                       {"drawn", c.drawn},
                       {"passed", c.passed},
                       {"message", c.message},
                       {"report", c.report}});
    }
    all.push_back({{"exercise", g.exercise},
                   {"title", g.title},
                   {"lesson", g.lesson},
                   {"file", g.file},
                   {"backend", std::string(to_string(g.backend))},
                   {"seed", g.seed},
                   {"passed", g.passed},
                   {"skipped", g.skipped},
                   {"sandboxed", g.sandboxed},
                   {"points", g.points},
                   {"score", g.score()},
                   {"message", g.message},
                   {"build_log", g.build_log},
                   {"cases", cases}});
    every = every && (g.passed || g.skipped);
  }
  nlohmann::json report = {{"passed", every}, {"exercises", all}};
  if (!grades.empty()) {
    report["backend"] = std::string(to_string(grades.front().backend));
    report["seed"] = grades.front().seed;
  }
  return report.dump(2) + "\n";
}

std::string report_text(const Grade& g) {
  std::string text = fmt::format("{} — {}\n", g.exercise, g.file);
  if (g.skipped) return text + "  skipped: " + g.message + "\n";
  if (!g.sandboxed) text += fmt::format("  {} — {}\n", kNotSandboxed, sandbox_support().why_not);
  for (const CaseResult& c : g.cases) text += fmt::format("  {} {}\n", c.passed ? "pass" : "FAIL", c.label);
  const auto passed = std::count_if(g.cases.begin(), g.cases.end(), [](const CaseResult& c) { return c.passed; });
  if (g.passed) return text + fmt::format("  PASSED: {} of {} cases\n", passed, g.cases.size());
  std::string first = g.message;
  for (std::size_t at = first.find('\n'); at != std::string::npos; at = first.find('\n', at + 5))
    first.replace(at, 1, "\n    ");
  return text + fmt::format("  FAILED: {} of {} cases passed. First failure:\n    {}\n", passed, g.cases.size(), first);
}

}  // namespace gpulab::grading
