// Builds learner CUDA at run time: see cuda_build.hpp. The compilers and paths are those this
// GPU Lab was built with (compile definitions from lessons/CMakeLists.txt).
#include "run/cuda_build.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "emulator/rewrite/header_mirror.hpp"
#include "emulator/rewrite/rewrite.hpp"
#include "run/two_halves.hpp"

namespace fs = std::filesystem;

namespace gpulab::build {

namespace {

// Bumped when how a program is built changes, so that nothing built the old way is reused.
constexpr const char* kRecipe = "objects, then link; headers mirrored; cuda_runtime.h precompiled; two halves (8)";

// `cuda`: for a learner's .cu, which, as nvcc does, gets cuda_runtime.h before its first line — the
// emulator's, precompiled at GPU Lab's build with these flags (GPULAB_EMULATOR_PCH: its 87,000
// lines parsed once there, not in every file: 2.1 s -> 0.6 s a file). Its folder comes first, so
// the file's own #include <cuda_runtime.h> finds the guarded copy there. Where the precompiled
// header does not fit (another compiler, a -D it depends on), GCC reads the header instead.
// after_precompiled.h says again the diagnostic pragma the precompiled form leaves out.
// `plain`: the plain half of such a file (two_halves.hpp), its own header precompiled in plain/.
std::string emulated_flags(bool cuda = false, bool plain = false) {
  const std::string pch = std::string(GPULAB_EMULATOR_PCH) + (plain ? "/plain" : "");
  const std::string precompiled =
      !cuda   ? ""
      : plain ? " -I" + pch + " -include cuda_runtime.h " + GPULAB_PLAIN_FLAGS
              : " -I" + pch + " -include cuda_runtime.h -include after_precompiled.h " + GPULAB_CHECKED_FLAGS;
  return std::string(GPULAB_CXX) + " -std=c++20 -O2 -Wno-unknown-pragmas -Wno-volatile" + precompiled + " -I" +
         GPULAB_EMULATOR_INCLUDE + " -I" + GPULAB_KERNELS_INCLUDE;
}
std::string gpu_flags() { return nvcc_path() + " -std=c++20 -O2 -arch=native -lineinfo"; }

// Whether the program is older than a file any of its objects was built from: the compiler wrote
// their lists (-MD) beside it, so an edited header rebuilds it too.
bool out_of_date(const fs::path& program, const std::vector<fs::path>& deps) {
  std::error_code ec;
  const auto built = fs::last_write_time(program, ec);
  if (ec) return true;
  for (const fs::path& d : deps) {
    if (!fs::exists(d)) return true;
    for (const fs::path& file : dependencies_listed(d)) {
      const auto changed = fs::last_write_time(file, ec);
      if (ec || changed > built) return true;
    }
  }
  return false;
}

std::string key_of(const Request& r) {
  std::string all =
      std::string(kRecipe) + '\n' + (r.gpu ? gpu_flags() : emulated_flags(true) + '\n' + emulated_flags(true, true));
  std::error_code ec;
  // The emulator's library is part of the key: a rebuilt emulator rebuilds the program.
  all += std::to_string(fs::last_write_time(GPULAB_EMULATOR_LIB, ec).time_since_epoch().count());
  all += r.stop_at_reports ? "\nstop at reports" : "";
  all += r.plain_host_code ? "\nhost code plain" : "";
  for (const auto* list : {&r.sources, &r.trusted_sources}) {
    for (const fs::path& p : *list) all += '\n' + fs::absolute(p).string() + '\n' + emulated::read_source(p.string());
    all += "\n--";
  }
  for (const fs::path& d : r.include_dirs) all += "\n-I" + fs::absolute(d).string();
  for (const std::string& d : r.defines) all += "\n-D" + d;
  for (const std::string& l : r.libraries) all += "\n-l" + l;
  for (const fs::path& h : r.forced_includes)
    all += "\n-include" + fs::absolute(h).string() + '\n' + emulated::read_source(h.string());
  return std::to_string(std::hash<std::string>{}(all));
}

// Where a trusted source's object is kept: its content, its path and everything it is compiled with.
std::string trusted_key(const fs::path& source, bool gpu) {
  std::error_code ec;
  std::string all = std::string(kRecipe) + '\n' + (gpu ? gpu_flags() : emulated_flags()) + '\n' +
                    fs::absolute(source).string() + '\n' + emulated::read_source(source.string());
  all += std::to_string(fs::last_write_time(GPULAB_EMULATOR_LIB, ec).time_since_epoch().count());
  return std::to_string(std::hash<std::string>{}(all));
}

// Whether `file` is one of the system's or the emulator's (not a learner's).
bool under_toolchain(const fs::path& file) {
  const std::string path = fs::weakly_canonical(file).string();
  if (path.rfind("/usr/", 0) == 0) return true;
  static const std::vector<fs::path> folders = toolchain_folders(false);
  for (const fs::path& folder : folders) {
    if (path.rfind(folder.string() + "/", 0) == 0) return true;
  }
  return false;
}

}  // namespace

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string nvcc_path() {
  std::string nvcc = GPULAB_NVCC;
  if (!nvcc.empty() && !fs::exists(nvcc)) nvcc = "nvcc";
  return nvcc;
}

std::vector<fs::path> dependencies_listed(const fs::path& list) {
  std::vector<fs::path> files;
  std::stringstream text(emulated::read_source(list.string()));
  std::string word;
  bool target = true;  // "object.o: a.cu b.h \ ..." — the first word names the target
  while (text >> word) {
    if (target) {
      target = word.back() != ':';
      continue;
    }
    if (word != "\\") files.emplace_back(word);
  }
  return files;
}

std::vector<fs::path> toolchain_folders(bool gpu) {
  if (!gpu) {
    // The emulator's CUDA headers (and their precompiled copy), and the few of GPU Lab's they
    // include (emulator/, common/).
    const fs::path kernels = fs::weakly_canonical(GPULAB_KERNELS_INCLUDE);
    return {fs::weakly_canonical(GPULAB_EMULATOR_INCLUDE), fs::weakly_canonical(GPULAB_EMULATOR_PCH),
            kernels / "emulator", kernels / "common"};
  }
  std::error_code ec;
  const fs::path nvcc = fs::canonical(nvcc_path(), ec);
  if (ec) return {};
  return {nvcc.parent_path().parent_path()};
}

fs::path default_cache(const std::string& what) {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0')
    return fs::path(xdg) / "gpulab" / what;
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return fs::path(home) / ".cache/gpulab" / what;
  return fs::temp_directory_path() / ("gpulab-" + what);
}

int run_logged(const std::string& command, std::string& log) {
  const std::string full = "( " + command + " ) 2>&1";
  FILE* pipe = popen(full.c_str(), "r");
  if (pipe == nullptr) {
    log += "cannot run: " + command + "\n";
    return 127;
  }
  char buffer[4096];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) log.append(buffer, got);
  const int status = pclose(pipe);
  if (status == -1) return 127;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

Result build_program(const Request& r) {
  Result result;
  if (r.gpu && nvcc_path().empty()) {
    result.log = "this GPU Lab was built without the CUDA toolkit: no nvcc to build for the GPU\n";
    return result;
  }
  const fs::path dir = r.cache / key_of(r);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    result.log = "cannot create " + dir.string() + ": " + ec.message() + "\n";
    return result;
  }
  result.program = dir / (r.gpu ? "program-gpu" : "program-emulated");
  std::vector<fs::path> deps;
  const std::size_t count = r.sources.size() + r.trusted_sources.size();
  for (std::size_t i = 0; i < count; ++i) deps.push_back(dir / ("deps-" + std::to_string(i) + ".d"));
  if (!out_of_date(result.program, deps)) {
    result.ok = true;
    return result;
  }
  // Built in a folder of this process's own, then moved into place: two graders building the
  // same file at once do not trip over each other.
  const fs::path work = dir / ("work-" + std::to_string(getpid()) + "-" +
                               std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())));
  fs::create_directories(work, ec);
  std::string link = r.gpu ? gpu_flags() : std::string(GPULAB_CXX);
  // The include path, as nvcc's: each source's own folder (for "quoted" includes, as when it is
  // compiled where it lies; nvcc has no -iquote: -I serves), then the -I folders. On the emulator
  // the learner's headers are rewritten into a mirror searched first (emulator/rewrite/header_mirror.hpp).
  std::vector<fs::path> learner_folders;
  for (const fs::path& source : r.sources) learner_folders.push_back(fs::absolute(source).parent_path());
  for (const fs::path& d : r.include_dirs) learner_folders.push_back(fs::absolute(d));
  const fs::path mirror = work / "mirror";
  if (!r.gpu) {
    result.log +=
        emulated::mirror_learner_folders(learner_folders, mirror, {GPULAB_EMULATOR_INCLUDE, GPULAB_KERNELS_INCLUDE});
  }
  auto searched = [&](const fs::path& folder, const char* option) {
    const std::string first = r.gpu ? "" : " -iquote " + shell_quote(emulated::mirrored(mirror, folder).string());
    return first + " " + option + " " + shell_quote(folder.string());
  };
  std::string learner_flags;
  for (const fs::path& d : r.include_dirs) learner_flags += searched(fs::absolute(d), "-I");
  for (const std::string& d : r.defines) learner_flags += " -D" + shell_quote(d);
  // A learner's .cu on the emulator: in two halves, instrumented and plain, where they do
  // (two_halves.hpp); their instrumented objects are joined to the rest before the link.
  std::vector<fs::path> instrumented_halves;
  std::size_t index = 0;
  // A learner's .cu is CUDA: on the emulator rewritten (launches, __shared__), keeping every line
  // where it was, and instrumented for the checked mode. A .cpp or .c is host code, compiled as
  // nvcc would hand it to the host compiler. GPU Lab's own files (a grading driver) as they are.
  // GPU Lab's own files see the kernels' and the lessons' headers (a grading driver times with the
  // lessons' clock, common/event_clock.hpp).
  const auto own_headers = [] {
    return std::string(" -I") + shell_quote(GPULAB_KERNELS_INCLUDE) + " -I" + shell_quote(GPULAB_LESSONS_INCLUDE);
  };
  auto compile = [&](const fs::path& source, bool learner) -> bool {
    fs::path object = work / ("object-" + std::to_string(index) + ".o");
    const fs::path dep = work / ("deps-" + std::to_string(index) + ".d");
    ++index;
    // GPU Lab's own files (a grading driver: the same for every submission of an exercise) are
    // compiled once and their objects kept, by their content and the flags.
    const fs::path kept = r.cache / "trusted" / trusted_key(source, r.gpu);
    if (!learner && !out_of_date(kept / "object.o", {kept / "deps.d"})) {
      fs::copy_file(kept / "deps.d", dep, fs::copy_options::overwrite_existing);
      link += " " + shell_quote((kept / "object.o").string());
      return true;
    }
    const std::string ext = source.extension().string();
    const bool host_c = learner && ext == ".c";
    const bool host_cpp = learner && (ext == ".cpp" || ext == ".cc" || ext == ".cxx" || ext == ".C");
    const fs::path folder = fs::absolute(source).parent_path();
    const char* own = r.gpu ? "-I" : "-iquote";
    std::string command, plain_command;
    fs::path input = source, plain_object;
    if (r.gpu) {
      command = gpu_flags() + searched(folder, own) + learner_flags + (host_c || host_cpp ? "" : " -x cu") + " -c";
      if (learner && !host_c) {
        for (const fs::path& h : r.forced_includes) command += " -include " + shell_quote(fs::absolute(h).string());
      }
      if (!learner) command += own_headers();
    } else if (host_c) {
      command = std::string(GPULAB_CXX) + " -x c -O2" + searched(folder, own) + learner_flags + " -c";
    } else {
      const bool cuda = learner && !host_cpp;
      std::string flags = emulated_flags(cuda) + searched(folder, own) + (learner ? learner_flags : own_headers());
      if (cuda) {
        input = work / (source.stem().string() + ".emulated.cpp");
        try {
          emulated::RewriteOptions options;
          options.stop_at_reports = r.stop_at_reports;
          std::ofstream(input, std::ios::binary)
              << emulated::rewrite_cuda(emulated::read_source(source.string()), source.string(), options);
        } catch (const std::invalid_argument& e) {
          result.log += std::string(e.what()) + "\n";
          return false;
        }
      }
      command = flags + " -x c++ -c";
      if (cuda && r.plain_host_code) {  // (its warnings are the instrumented half's)
        plain_object = object;
        object.replace_extension(".instrumented.o");
        plain_command = emulated_flags(true, true) + searched(folder, own) + learner_flags + " -w -x c++ -c -o " +
                        shell_quote(plain_object.string()) + " " + shell_quote(input.string());
      }
    }
    command += " -o " + shell_quote(object.string()) + " " + shell_quote(input.string());
    command += " -MD -MF " + shell_quote(dep.string());
    if (r.verbose) result.log += command + "\n" + (plain_command.empty() ? "" : plain_command + "\n");
    // The two halves side by side.
    std::string plain_log;
    int plain_status = 0;
    std::thread plain_half;
    if (!plain_command.empty()) plain_half = std::thread([&] { plain_status = run_logged(plain_command, plain_log); });
    const int status = run_logged(command, result.log);
    if (plain_half.joinable()) plain_half.join();
    if (status != 0) return false;
    if (plain_status != 0) {
      result.log += plain_log;
      return false;
    }
    // The dependency list names what was compiled (the rewritten file, the mirror): made to name
    // the learner's files, so that the cache sees an edit of any of them, and only that.
    const std::string listed = emulated::original_dependencies(emulated::read_source(dep.string()), mirror,
                                                               input.string(), fs::absolute(source).string());
    std::ofstream(dep, std::ios::binary) << listed;
    // Two halves, unless a file the learner's compiled (it, its headers) says they would not do.
    std::string one_piece;
    if (!plain_command.empty()) {
      std::vector<std::string> texts;
      for (const fs::path& file : dependencies_listed(dep)) {
        if (!under_toolchain(file)) texts.push_back(emulated::read_source(file.string()));
      }
      one_piece = one_piece_reason(texts);
      if (!one_piece.empty() && r.verbose)
        result.log += source.string() + ": in one instrumented piece: " + one_piece + "\n";
    }
    if (plain_command.empty() || !one_piece.empty()) {
      link += " " + shell_quote(object.string());
    } else {
      link += " " + shell_quote(plain_object.string()) + " " + shell_quote(object.string());
      instrumented_halves.push_back(object);
    }
    if (!learner) {  // kept for the next build, put in place whole (another grader may look)
      std::error_code kept_ec;
      const fs::path partial = kept.string() + ".partial-" + work.filename().string();
      fs::create_directories(partial, kept_ec);
      fs::copy_file(object, partial / "object.o", fs::copy_options::overwrite_existing, kept_ec);
      fs::copy_file(dep, partial / "deps.d", fs::copy_options::overwrite_existing, kept_ec);
      fs::rename(partial, kept, kept_ec);
      if (kept_ec) fs::remove_all(partial, kept_ec);
    }
    return true;
  };
  bool ok = true;
  for (const fs::path& s : r.sources) ok = ok && compile(s, true);
  for (const fs::path& s : r.trusted_sources) ok = ok && compile(s, false);
  if (ok && !instrumented_halves.empty()) ok = join_instrumented_halves(instrumented_halves, work, result.log);
  const fs::path linked = work / result.program.filename();
  if (ok) {
    // Linked without the checked mode's flags: with them the compiler would add ThreadSanitizer's
    // runtime, whose place the emulator's checks take.
    link += " -o " + shell_quote(linked.string());
    for (const std::string& l : r.libraries) {
      if (r.gpu || (l != "cudart" && l != "cuda" && l != "cublas" && l != "curand")) link += " -l" + shell_quote(l);
    }
    if (!r.gpu) link += std::string(" ") + GPULAB_EMULATOR_LIBS + " -pthread";
    if (r.verbose) result.log += link + "\n";
    ok = run_logged(link, result.log) == 0;
  }
  if (ok) {
    for (std::size_t i = 0; i < count; ++i) fs::rename(work / deps[i].filename(), deps[i], ec);
    fs::rename(linked, result.program, ec);
    ok = !ec;
    if (ec) result.log += "cannot move the program into " + dir.string() + ": " + ec.message() + "\n";
  }
  fs::remove_all(work, ec);
  result.ok = ok;
  return result;
}

}  // namespace gpulab::build
