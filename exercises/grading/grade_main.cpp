// gpulab_grade: builds each exercise file with its grading driver and checks it case by case
// against the float64 reference, each case in a process of its own, and says what went wrong in
// the learner's terms.
//   gpulab_grade                               every exercise, on the GPU if there is one, else emulated
//   gpulab_grade --exercise 05_matmul --backend emulated --seed 42 --report grades.json
//   gpulab_grade --exercise 01 --file ~/my_vector_add.cu      a file of your own
//   gpulab_grade --submissions class/ --gradebook grades.csv [--gradescope] [--jobs 8]   a whole class
//   gpulab_grade --submissions class/ --shard 2/4 --gradebook part2.csv    one of four shards
//   gpulab_grade --merge part*.csv --gradebook grades.csv                  the shards' gradebooks joined
// Exit status: 0 every exercise passed, 1 one failed, 2 a bad command line, 77 nothing could be
// graded on the backend asked for (no GPU; CTest reports that as skipped).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "base/device_info.hpp"
#include "common/random.hpp"
#include "grading/gradebook.hpp"
#include "grading/grading.hpp"
#include "run/cuda_build.hpp"

using namespace gpulab;
namespace fs = std::filesystem;

int main(int argc, char** argv) {
  CLI::App cli{"Grades exercise files (yours, the solutions, or a class's submissions) against the float64 reference."};
  std::vector<std::string> wanted{"all"};
  std::string backend_name = "auto", report, file, submissions, gradebook, exercises;
  std::uint64_t seed = 0;
  bool list = false, solutions = false, gradescope = false, no_sanitizers = false, performance = false;
  double time_limit = 0;
  cli.add_option(
         "--exercise,--lesson", wanted,
         "exercises to grade: all, names such as 05_matmul, or lesson numbers such as 01,05 (all of a lesson's)")
      ->delimiter(',');
  cli.add_option("--backend", backend_name, "gpu, emulated, or auto (the GPU when there is one)")
      ->check(CLI::IsMember({"auto", "gpu", "emulated"}));
  cli.add_option("--seed", seed, "replay a run's sizes and inputs (default: fresh ones, printed)");
  cli.add_option("--report", report, "write the grades as JSON to this file");
  cli.add_option("--file", file, "grade this file instead of the exercise's own (one exercise)");
  cli.add_flag("--solutions", solutions, "grade each exercise's solution.cu (instructors: does the grader pass it?)");
  cli.add_option("--submissions", submissions,
                 "grade a class: every student's folder in this folder, laid out like exercises/ "
                 "(STUDENT/05_matmul/exercise.cu)");
  cli.add_option("--gradebook", gradebook,
                 "with --submissions: the CSV gradebook (student, exercise, passed, score, failures)");
  cli.add_flag("--gradescope", gradescope,
               "with --submissions: each student's results.json in their folder, in the format course "
               "autograders read (score, tests with name, score, max_score, output)");
  std::string student, results, format = "gradescope";
  cli.add_option("--student", student,
                 "a course platform's one submission: DIR/NAME/FILE per exercise, or DIR/FILE when one exercise "
                 "is graded (Gradescope: /autograder/submission; PrairieLearn: /grade/student)");
  cli.add_option("--results", results, "with --student: where the platform reads the results");
  cli.add_option("--format", format, "with --student: gradescope or prairielearn")
      ->check(CLI::IsMember({"gradescope", "prairielearn"}));
  int jobs = 1;
  std::string shard;
  std::vector<std::string> merge;
  cli.add_option("--jobs,-j", jobs, "with --submissions: students graded at once (each case is a process)")
      ->check(CLI::Range(1, 256));
  cli.add_option("--shard", shard,
                 "with --submissions: K/N grades the K-th of N shares of the students (1/4 ... 4/4), for a "
                 "cluster's job array; --merge joins the shards' gradebooks");
  cli.add_option("--merge", merge, "merge these shards' gradebooks into the --gradebook file, then stop")
      ->expected(1, -1);
  cli.add_flag("--performance", performance,
               "on the GPU, also time each exercise's performance case and score it by its bands");
  cli.add_flag("--no-sanitizers", no_sanitizers, "on the GPU, do not run passing cases again under compute-sanitizer");
  cli.add_option("--time-limit", time_limit, "seconds per case (default: the exercise's own, usually 60)");
  cli.add_option("--exercises", exercises,
                 "the folder the exercises lie under: its lessons' NN_*/exercises/NAME/ or its own NAME/ (default: "
                 "this GPU Lab's lessons/)");
  cli.add_flag("--list", list, "list the exercises and their files");
  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return cli.exit(e) == 0 ? 0 : 2;
  }
  if (!exercises.empty()) setenv("GPULAB_EXERCISES", exercises.c_str(), 1);
  if (!merge.empty()) {
    if (gradebook.empty()) {
      std::cerr << "gpulab_grade: --merge writes the --gradebook file: name it\n";
      return 2;
    }
    return grading::merge_gradebooks(std::vector<fs::path>(merge.begin(), merge.end()), gradebook, std::cout);
  }
  std::size_t shard_index = 0, shard_count = 1;
  if (!shard.empty()) {
    const auto slash = shard.find('/');
    try {
      shard_index = std::stoul(shard.substr(0, slash));
      shard_count = slash == std::string::npos ? 0 : std::stoul(shard.substr(slash + 1));
    } catch (const std::exception&) {
      shard_count = 0;
    }
    if (shard_count == 0 || shard_index < 1 || shard_index > shard_count || submissions.empty()) {
      std::cerr << "gpulab_grade: --shard K/N (1 <= K <= N) goes with --submissions DIR\n";
      return 2;
    }
    shard_index -= 1;
  }
  std::vector<const grading::Spec*> chosen;
  try {
    if (list) {
      for (const auto& e : grading::all_exercises())
        std::cout << e.name << "  " << (e.folder / e.file).string() << "\n    " << e.task << "\n";
      return 0;
    }
    if (wanted == std::vector<std::string>{"all"}) {
      for (const auto& e : grading::all_exercises()) chosen.push_back(&e);
    } else {
      for (const std::string& id : wanted) {
        std::vector<const grading::Spec*> found = grading::exercises_of_lesson(id);
        if (const grading::Spec* one = grading::find_exercise(id); found.empty() && one != nullptr) found = {one};
        if (found.empty()) {
          std::cerr << "gpulab_grade: no exercise \"" << id << "\" (gpulab_grade --list names them)\n";
          return 2;
        }
        chosen.insert(chosen.end(), found.begin(), found.end());
      }
    }
  } catch (const std::invalid_argument& e) {
    std::cerr << "gpulab_grade: " << e.what() << "\n";
    return 2;
  }
  if (!file.empty() && (chosen.size() != 1 || solutions || !submissions.empty())) {
    std::cerr << "gpulab_grade: --file grades one exercise's file (name it with --exercise)\n";
    return 2;
  }
  if ((!gradebook.empty() || gradescope) && submissions.empty()) {
    std::cerr << "gpulab_grade: --gradebook and --gradescope go with --submissions DIR\n";
    return 2;
  }
  grading::GradeOptions options;
  options.backend = Backend::emulated;
  if (backend_name == "gpu" || (backend_name == "auto" && device_info().available && !build::nvcc_path().empty()))
    options.backend = Backend::gpu;
  options.seed = seed == 0 ? fresh_seed() : seed;
  options.time_limit_s = time_limit;
  options.performance = performance;
  if (options.backend == Backend::gpu && !no_sanitizers) options.sanitizers = {"memcheck", "racecheck"};

  if (!student.empty()) {
    if (results.empty()) {
      std::cerr << "gpulab_grade: --student writes the platform's --results file: name it\n";
      return 2;
    }
    const std::vector<grading::Grade> grades = grading::grade_student(chosen, student, options);
    for (const grading::Grade& g : grades) std::cout << grading::report_text(g) << std::endl;
    std::ofstream out(results);
    out << (format == "gradescope" ? grading::gradescope_json(grades) : grading::prairielearn_json(grades));
    if (!out) {
      std::cerr << "gpulab_grade: cannot write " << results << "\n";
      return 2;
    }
    return 0;  // graded, whatever the grade: the platform reads it from the file
  }
  if (!submissions.empty()) {
    grading::ClassOptions class_options{fs::path(submissions), fs::path(gradebook), gradescope};
    class_options.jobs = jobs;
    class_options.progress = isatty(STDOUT_FILENO) != 0;
    class_options.shard = shard_index;
    class_options.shards = shard_count;
    return grading::grade_class(chosen, options, class_options, std::cout);
  }

  std::cout << "Grading on the " << to_string(options.backend) << " backend, seed " << options.seed
            << " (the same sizes and inputs again: --seed " << options.seed << ")\n\n";
  std::vector<grading::Grade> grades;
  for (const grading::Spec* e : chosen) {
    const fs::path path = !file.empty() ? fs::path(file) : solutions ? e->solution_file() : e->learner_file();
    grades.push_back(grading::grade(*e, path, options));
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
