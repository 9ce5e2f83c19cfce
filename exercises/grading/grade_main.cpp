// gpulab_grade: grades the learner's kernels (each lesson's variant `yours`) against the CPU
// reference, prints what went wrong in the learner's terms, and writes a JSON report.
//   gpulab_grade                        every exercise, on the GPU if there is one, else emulated
//   gpulab_grade --lesson 01,05 --backend emulated --seed 42 --report grades.json
// Exit status: 0 every exercise passed, 1 one failed, 2 a bad command line, 77 nothing could be
// graded on the backend asked for (no GPU; CTest reports that as skipped).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "common/device_info.hpp"
#include "common/random.hpp"
#include "grading/grading.hpp"

using namespace gpulab;

int main(int argc, char** argv) {
  CLI::App cli{"Grades your exercise kernels (each lesson's variant `yours`) against the CPU reference."};
  std::vector<std::string> lessons{"all"};
  std::string backend_name = "auto", report, variant;
  std::uint64_t seed = 0;
  bool list = false;
  cli.add_option("--lesson", lessons, "lessons to grade: all, or ids/names such as 01,05 or 06_conv")->delimiter(',');
  cli.add_option("--backend", backend_name, "gpu, emulated, or auto (the GPU when there is one)")
      ->check(CLI::IsMember({"auto", "gpu", "emulated"}));
  cli.add_option("--seed", seed, "replay a run's sizes and inputs (default: fresh ones, printed)");
  cli.add_option("--report", report, "write the grades as JSON to this file");
  cli.add_flag("--list", list, "list the exercises and their files");
  cli.add_option("--variant", variant,
                 "grade another of the lesson's variants instead of yours (instructors: does the grader catch "
                 "lesson 06's planted bugs? --lesson 06 --variant bug_barrier)");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e) == 0 ? 0 : 2;
  }
  if (list) {
    for (const auto& e : grading::all_exercises()) std::cout << e.name << "  " << e.file << "\n    " << e.task << "\n";
    return 0;
  }
  std::vector<grading::Exercise> chosen;
  if (lessons == std::vector<std::string>{"all"}) {
    for (const auto& e : grading::all_exercises()) chosen.push_back(e);
  } else {
    for (const std::string& id : lessons) {
      const grading::Exercise* e = grading::find_exercise(id);
      if (e == nullptr) {
        std::cerr << "gpulab_grade: no exercise \"" << id << "\" (gpulab_grade --list names them)\n";
        return 2;
      }
      chosen.push_back(*e);
    }
  }
  if (!variant.empty()) {
    if (chosen.size() != 1) {
      std::cerr << "gpulab_grade: --variant needs one --lesson\n";
      return 2;
    }
    chosen.front().variant = variant;
  }
  Backend backend = Backend::emulated;
  if (backend_name == "gpu" || (backend_name == "auto" && device_info().available)) backend = Backend::gpu;
  if (seed == 0) seed = fresh_seed();

  std::cout << "Grading on the " << to_string(backend) << " backend, seed " << seed
            << " (the same sizes and inputs again: --seed " << seed << ")\n\n";
  std::vector<grading::Grade> grades;
  for (const grading::Exercise& e : chosen) {
    grades.push_back(grading::grade(e, backend, seed));
    std::cout << grading::report_text(grades.back()) << std::endl;
  }
  if (!report.empty()) {
    std::ofstream out(report);
    out << grading::report_json(grades);
    if (!out) {
      std::cerr << "gpulab_grade: cannot write the report to " << report << "\n";
      return 2;
    }
  }
  int passed = 0, failed = 0, skipped = 0;
  for (const auto& g : grades) (g.skipped ? skipped : g.passed ? passed : failed) += 1;
  std::cout << passed << " passed, " << failed << " failed, " << skipped << " skipped\n";
  if (failed > 0) return 1;
  return passed == 0 && skipped > 0 ? 77 : 0;
}
