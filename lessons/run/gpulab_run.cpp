// gpulab_run FILE.cu [-- ARGS...]: compiles and runs one ordinary CUDA program — main, host
// arrays, cudaMalloc, kernel<<<...>>>(...) — on the GPU with nvcc where there is one, otherwise
// (or with --emulated) on the CPU against GPU Lab's emulator. Build errors are the compiler's
// messages on the learner's file and lines. Exit status: the program's own (128 + N when a
// signal N ended it); 1 when it did not build; 2 for bad usage.
//
// Builds are cached by content in $XDG_CACHE_HOME/gpulab/run (~/.cache/gpulab/run), so running
// the same file again starts at once.
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "common/device_info.hpp"
#include "emulator/rewrite.hpp"

namespace fs = std::filesystem;

namespace {

constexpr int kUsage = 2;
constexpr int kBuildFailed = 1;

std::string quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

fs::path cache_root() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0')
    return fs::path(xdg) / "gpulab/run";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return fs::path(home) / ".cache/gpulab/run";
  return fs::temp_directory_path() / "gpulab-run";
}

// Runs a command through the shell; its exit status.
int shell(const std::string& command) {
  const int status = std::system(command.c_str());
  if (status == -1) return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

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

// Whether the cached program is older than a file it was built from: the compiler wrote their
// list (-MD) to `deps` beside it, so an edited header rebuilds it too.
bool out_of_date(const fs::path& program, const fs::path& deps) {
  std::error_code ec;
  const auto built = fs::last_write_time(program, ec);
  if (ec || !fs::exists(deps)) return true;
  std::stringstream text(gpulab::emulated::read_source(deps.string()));
  std::string word;
  bool target = true;  // "program.o: a.cu b.h \ ..." — the first word names the target
  while (text >> word) {
    if (target) {
      target = word.back() != ':';
      continue;
    }
    if (word == "\\") continue;
    const auto changed = fs::last_write_time(word, ec);
    if (ec || changed > built) return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Compiles and runs one CUDA program (a .cu file with main) on the GPU, or on the CPU "
      "against GPU Lab's emulator."};
  std::string file;
  bool emulated = false, gpu = false, verbose = false;
  std::string check;  // (empty: GPULAB_CHECK, else full)
  std::vector<std::string> program_args;
  app.add_option("file", file, "the CUDA program (.cu)")->required()->check(CLI::ExistingFile);
  app.add_flag("--emulated", emulated, "run on the CPU against the emulator, even where there is a GPU");
  app.add_flag("--gpu", gpu, "run on the GPU (nvcc and a GPU needed)");
  app.add_flag("-v,--verbose", verbose, "print the compile command");
  app.add_option("--check", check,
                 "the emulator's checked mode: full (memcheck, racecheck, initcheck, synccheck) or memcheck "
                 "(bounds only, faster); the same as GPULAB_CHECK")
      ->check(CLI::IsMember({"full", "memcheck"}));
  app.add_option("args", program_args, "arguments for the program (after --)");
  app.positionals_at_end();
  // Everything after the first -- belongs to the program, whatever it looks like.
  int own = argc;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) {
      own = i;
      break;
    }
  }
  try {
    app.parse(own, argv);
    for (int i = own + 1; i < argc; ++i) program_args.emplace_back(argv[i]);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kUsage;
  }
  if (emulated && gpu) {
    std::cerr << "gpulab_run: --emulated and --gpu exclude each other\n";
    return kUsage;
  }
  // The toolkit's nvcc where this GPU Lab was built, else the one on the PATH.
  std::string nvcc = GPULAB_NVCC;
  if (!nvcc.empty() && !fs::exists(nvcc)) nvcc = "nvcc";
  if (gpu && nvcc.empty()) {
    std::cerr << "gpulab_run: --gpu needs the CUDA toolkit (nvcc), which this GPU Lab was built without\n";
    return kUsage;
  }
  if (!emulated && !gpu) {
    gpu = !nvcc.empty() && gpulab::device_info().available;
    if (!gpu) std::cerr << "gpulab_run: no GPU here, so the program runs on the emulator (on the CPU)\n";
  }
  if (gpu && !gpulab::device_info().available) {
    std::cerr << "gpulab_run: --gpu, but " << gpulab::device_info().reason << "\n";
    return kUsage;
  }

  const fs::path source = fs::absolute(file);
  const std::string text = gpulab::emulated::read_source(source.string());
  const std::string flags = gpu ? nvcc + " -std=c++20 -O2 -arch=native -lineinfo"
                                : std::string(GPULAB_CXX) + " -std=c++20 -O2 -Wno-unknown-pragmas -Wno-volatile " +
                                      GPULAB_CHECKED_FLAGS + " -I" + GPULAB_EMULATOR_INCLUDE + " -I" +
                                      GPULAB_KERNELS_INCLUDE;
  // The emulator's library is part of the key: a rebuilt emulator rebuilds the program.
  std::error_code ec;
  const auto emulator_time = fs::last_write_time(GPULAB_EMULATOR_LIB, ec).time_since_epoch().count();
  // (kRecipe: bumped when how a program is built changes, so no program built the old way is reused.)
  constexpr const char* kRecipe = "compile, then link (2)";
  const std::string key =
      std::to_string(std::hash<std::string>{}(text + '\n' + flags + '\n' + kRecipe + '\n' + source.string() + '\n' +
                                              file + '\n' + std::to_string(emulator_time)));
  const fs::path dir = cache_root() / key;
  const fs::path program = dir / (gpu ? "program-gpu" : "program-emulated");
  fs::create_directories(dir, ec);
  if (ec) {
    std::cerr << "gpulab_run: cannot create " << dir << ": " << ec.message() << "\n";
    return kUsage;
  }
  const fs::path deps = dir / "deps.d";
  if (out_of_date(program, deps)) {
    std::string command;
    if (gpu) {
      command = flags + " -o " + quote(program.string()) + " " + quote(file);
    } else {
      const fs::path rewritten = dir / (source.stem().string() + ".emulated.cpp");
      try {
        gpulab::emulated::RewriteOptions options;
        // Messages and __FILE__ name the file as it was given.
        std::ofstream(rewritten, std::ios::binary) << gpulab::emulated::rewrite_cuda(text, file, options);
      } catch (const std::invalid_argument& e) {
        std::cerr << e.what() << "\n";
        return kBuildFailed;
      }
      // The file's own folder first for "quoted" includes, as when it is compiled where it lies.
      // Compiled and linked in two steps: linked with the checked mode's flags, the compiler would
      // add ThreadSanitizer's runtime, whose place the emulator's checks take.
      const fs::path object = dir / "program.o";
      command = flags + " -iquote " + quote(source.parent_path().string()) + " -c -o " + quote(object.string()) + " " +
                quote(rewritten.string()) + " -MD -MF " + quote(deps.string()) + " && " + GPULAB_CXX + " -o " +
                quote(program.string()) + " " + quote(object.string()) + " " + GPULAB_EMULATOR_LIBS + " -pthread";
    }
    if (gpu) command += " -MD -MF " + quote(deps.string());  // what it was built from (out_of_date reads it)
    if (verbose) std::cerr << command << "\n";
    if (shell(command) != 0) {
      std::cerr << "gpulab_run: " << file << " did not build (the compiler's messages are above)\n";
      fs::remove(program, ec);
      return kBuildFailed;
    }
  }
  if (!gpu && !check.empty()) setenv("GPULAB_CHECK", check.c_str(), 1);  // the emulator reads it (emulator/checker.hpp)
  return run_program(program, program_args);
}
