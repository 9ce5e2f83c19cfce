// gpulab_run [-I DIR] [-D NAME[=VALUE]] [-o PROGRAM] FILE.cu [MORE.cu|.cpp|.c ...] [-- ARGS...]:
// compiles and runs an ordinary CUDA program — main, host arrays, cudaMalloc,
// kernel<<<...>>>(...), in one file or several — on the GPU with nvcc where there is one,
// otherwise (or with --emulated) on the CPU against GPU Lab's emulator. -I, -D and -o as nvcc
// takes them: with -o the program is built into that file and not run. Build errors are the
// compiler's messages on the learner's files and lines. Exit status: the program's own (128 + N
// when a signal N ended it); 1 when it did not build; 2 for bad usage.
//
// Builds are cached by content in $XDG_CACHE_HOME/gpulab/run (~/.cache/gpulab/run), so running
// the same files again starts at once.
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "base/device_info.hpp"
#include "run/cuda_build.hpp"

namespace fs = std::filesystem;

namespace {

constexpr int kUsage = 2;
constexpr int kBuildFailed = 1;

// Runs the built program with the arguments, as the learner's own process would run: its output
// straight to ours, its exit status returned.
int run_program(const fs::path& program, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  std::string name = program.string();
  argv.push_back(name.data());
  std::vector<std::string> copies = args;
  for (std::string& a : copies) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  const pid_t child = fork();
  if (child < 0) return 127;
  if (child == 0) {
    execv(program.c_str(), argv.data());
    std::perror("gpulab_run: exec");
    _exit(127);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    std::cerr << "gpulab_run: the program was ended by signal " << sig << " (" << strsignal(sig) << ")\n";
    return 128 + sig;
  }
  return WEXITSTATUS(status);
}

// What nvcc compiles, by the file's name.
bool source_file(const fs::path& file) {
  for (const char* ext : {".cu", ".cpp", ".cc", ".cxx", ".C", ".c"})
    if (file.extension() == ext) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Compiles and runs one CUDA program (a .cu file with main) on the GPU, or on the CPU "
      "against GPU Lab's emulator."};
  std::vector<std::string> files;
  bool emulated = false, gpu = false, verbose = false, memory_report = false;
  std::string check;  // (empty: GPULAB_CHECK, else full)
  std::vector<std::string> program_args, include_dirs, defines, libraries;
  std::string output;
  app.add_option("files", files,
                 "the program's source files: .cu (CUDA), .cpp, .cc or .c (host code); other words before -- are "
                 "the program's arguments")
      ->required();
  // (One value each time, as nvcc takes them: -I a -I b, never -I a b.)
  app.add_option("-I,--include-path", include_dirs, "a folder searched for #include files, as nvcc's -I")
      ->check(CLI::ExistingDirectory)
      ->allow_extra_args(false);
  app.add_option("-D,--define-macro", defines, "a macro, NAME or NAME=VALUE, as nvcc's -D")->allow_extra_args(false);
  app.add_option("-l,--library", libraries,
                 "a library to link, as nvcc's -l (on the emulator cublas is modelled on OpenBLAS; cudart is "
                 "the emulator itself)")
      ->allow_extra_args(false);
  app.add_option("-o,--output-file", output, "build the program into this file, as nvcc -o does, and do not run it");
  app.add_flag("--emulated", emulated, "run on the CPU against the emulator, even where there is a GPU");
  app.add_flag("--gpu", gpu, "run on the GPU (nvcc and a GPU needed)");
  app.add_flag("-v,--verbose", verbose, "print the compile command");
  app.add_option("--check", check,
                 "the emulator's checked mode: full (memcheck, racecheck, initcheck, synccheck), memcheck "
                 "(bounds only, faster) or off (the fast path: no checks, a wild write not stopped); the same as "
                 "GPULAB_CHECK")
      ->check(CLI::IsMember({"full", "memcheck", "off"}));
  app.add_flag("--memory-report", memory_report,
               "on the emulator: count each kernel's global memory requests and 32-byte sectors, shared-memory "
               "requests and bank conflicts, per kernel and source line (as Nsight Compute does on a GPU), and "
               "print them when the program ends");
  app.positionals_at_end();
  // Everything after the first -- belongs to the program, whatever it looks like.
  int own = argc;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) {
      own = i;
      break;
    }
  }
  // nvcc takes its options anywhere (`nvcc main.cu -lcublas`): -l, -I, -D and -o after the files
  // move, with a separate value, before the first word, since CLI11 takes every word after the
  // first file as a file or the program's argument.
  std::vector<std::string> options_first, the_rest;
  for (int i = 1; i < own; ++i) {
    const std::string word = argv[i];
    const bool separate = (word == "-l" || word == "-I" || word == "-D" || word == "-o") && i + 1 < own;
    const bool attached =
        word.size() > 2 && (word.starts_with("-l") || word.starts_with("-I") || word.starts_with("-D"));
    if (separate) {
      options_first.push_back(word);
      options_first.emplace_back(argv[++i]);
    } else {
      (attached ? options_first : the_rest).push_back(word);
    }
  }
  std::vector<char*> words{argv[0]};
  for (std::string& w : options_first) words.push_back(w.data());
  for (std::string& w : the_rest) words.push_back(w.data());
  try {
    app.parse(static_cast<int>(words.size()), words.data());
    for (int i = own + 1; i < argc; ++i) program_args.emplace_back(argv[i]);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kUsage;
  }
  // Source files by their names, as nvcc tells them; a word before -- that names none is an
  // argument for the program (gpulab_run prog.cu 4097, as earlier versions took it).
  std::vector<fs::path> sources;
  std::vector<std::string> words_for_program;
  for (const std::string& f : files) {
    if (!source_file(f)) {
      words_for_program.push_back(f);
      continue;
    }
    if (!fs::is_regular_file(f)) {
      std::cerr << "gpulab_run: " << f << ": no such file\n";
      return kUsage;
    }
    sources.emplace_back(f);
  }
  if (sources.empty()) {
    std::cerr << "gpulab_run: no source file (.cu, .cpp, .cc or .c) among " << files.front()
              << (files.size() > 1 ? " ..." : "") << "\n";
    return kUsage;
  }
  program_args.insert(program_args.begin(), words_for_program.begin(), words_for_program.end());
  if (!output.empty() && !program_args.empty()) {
    std::cerr << "gpulab_run: -o builds the program without running it: it takes no arguments for it\n";
    return kUsage;
  }
  if (emulated && gpu) {
    std::cerr << "gpulab_run: --emulated and --gpu exclude each other\n";
    return kUsage;
  }
  const std::string nvcc = gpulab::build::nvcc_path();
  if (gpu && nvcc.empty()) {
    std::cerr << "gpulab_run: --gpu needs the CUDA toolkit (nvcc), which this GPU Lab was built without\n";
    return kUsage;
  }
  if (memory_report && gpu) {
    std::cerr << "gpulab_run: --memory-report counts on the emulator (add --emulated); on a GPU, Nsight Compute "
                 "counts the same: ncu --metrics l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum ...\n";
    return kUsage;
  }
  if (!emulated && !gpu && !memory_report) {
    gpu = !nvcc.empty() && gpulab::device_info().available;
    if (!gpu) std::cerr << "gpulab_run: no GPU here, so the program runs on the emulator (on the CPU)\n";
  }
  if (gpu && !gpulab::device_info().available) {
    std::cerr << "gpulab_run: --gpu, but " << gpulab::device_info().reason << "\n";
    return kUsage;
  }

  gpulab::build::Request request;
  request.sources = sources;
  request.include_dirs.assign(include_dirs.begin(), include_dirs.end());
  request.defines = defines;
  request.libraries = libraries;
  request.gpu = gpu;
  request.cache = gpulab::build::default_cache("run");
  request.verbose = verbose;
  const gpulab::build::Result built = gpulab::build::build_program(request);
  std::cerr << built.log;
  if (!built.ok) {
    std::cerr << "gpulab_run: " << sources.front().string() << (sources.size() > 1 ? " and the rest" : "")
              << " did not build (the compiler's messages are above)\n";
    return kBuildFailed;
  }
  if (!output.empty()) {
    std::error_code ec;
    fs::copy_file(built.program, output, fs::copy_options::overwrite_existing, ec);
    if (ec) {
      std::cerr << "gpulab_run: cannot write " << output << ": " << ec.message() << "\n";
      return kUsage;
    }
    return 0;
  }
  if (!gpu && !check.empty())
    setenv("GPULAB_CHECK", check.c_str(), 1);                 // the emulator reads it (emulator/observers/checker.hpp)
  if (memory_report) setenv("GPULAB_MEMORY_REPORT", "1", 1);  // (emulator/observers/memory_counter.hpp)
  return run_program(built.program, program_args);
}
