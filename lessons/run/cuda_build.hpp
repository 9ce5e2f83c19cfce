#pragma once
// Building a learner's CUDA at run time, for the GPU (nvcc) or for the emulator (GPU Lab's source
// rewrite, then the host compiler against the emulator's CUDA runtime), cached by content:
// gpulab_run builds whole programs with it, the grader each submission with its driver.
#include <filesystem>
#include <string>
#include <vector>

namespace gpulab::build {

struct Request {
  // The learner's files: checked (on the emulator, every access instrumented) and rewritten.
  std::vector<std::filesystem::path> sources;
  // Files of GPU Lab's own that call the learner's (a grading driver): compiled as they are, not
  // instrumented; on the GPU compiled by nvcc like the others.
  std::vector<std::filesystem::path> trusted_sources;
  // As nvcc's -I and -D: folders searched for includes (after each source's own folder), and
  // macros (NAME or NAME=VALUE), for every file.
  std::vector<std::filesystem::path> include_dirs;
  std::vector<std::string> defines;
  // As nvcc's -l: libraries to link. On the emulator, those it stands in for (cudart, cuda,
  // cublas: emulator/include/cublas_v2.h on OpenBLAS; curand: emulator/include/curand.h) are its own.
  std::vector<std::string> libraries;
  // Headers compiled in before each of the learner's files (nvcc's -include): the grader's watch
  // on a GPU (exercises/grading/gpu_watch.cuh). GPU Lab's own files also find the emulator's
  // headers (-I kernels/) on a GPU.
  std::vector<std::filesystem::path> forced_includes;
  bool gpu = false;
  // On the emulator, whether a launch fails at the checked mode's first report (the grader, whose
  // driver reads each launch's error); else it goes on, as under compute-sanitizer, and the
  // program exits non-zero at its end.
  bool stop_at_reports = false;
  // On the emulator, whether a learner's .cu is built in two halves, its host code plain
  // (two_halves.hpp), or in one instrumented piece (the grader's submissions: nothing of their
  // host code is timed, and one compile a submission keeps a class's grading as quick as it was).
  bool plain_host_code = true;
  // The cache folder: the program lands in a sub-folder named by a hash of everything it is built
  // from, so an edit (or an edited header) rebuilds it and nothing else does.
  std::filesystem::path cache;
  bool verbose = false;  // the commands go into the log too
};

struct Result {
  bool ok = false;
  std::filesystem::path program;
  std::string log;  // the compilers' messages (they name the learner's files and lines)
};

// Builds (or finds built) the program. Never throws for a file that does not compile: ok is false
// and the log says why.
Result build_program(const Request& request);

// Where builds are cached by default: $XDG_CACHE_HOME/gpulab/<what>, or ~/.cache/gpulab/<what>.
std::filesystem::path default_cache(const std::string& what);

// The files a compiler's dependency list (-MD: "object.o: a.cu b.h \\ ...") names.
std::vector<std::filesystem::path> dependencies_listed(const std::filesystem::path& list);

// The folders a build reads besides the learner's files and the system's (/usr): the emulator's
// headers on the emulator, the CUDA toolkit's where it is not under /usr.
std::vector<std::filesystem::path> toolchain_folders(bool gpu);

// nvcc where this GPU Lab was built with one (else "nvcc" on the PATH where it was not found there);
// empty where it was built without the CUDA toolkit.
std::string nvcc_path();

// Runs a command through the shell, its output appended to `log`; its exit status.
int run_logged(const std::string& command, std::string& log);

std::string shell_quote(const std::string& s);

}  // namespace gpulab::build
