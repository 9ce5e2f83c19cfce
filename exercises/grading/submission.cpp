// Building a submission with its driver, and running one case in a child process.
#include "grading/submission.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <thread>

#include "grading/driver.hpp"
#include "grading/sandbox.hpp"
#include "run/cuda_build.hpp"

namespace gpulab::grading {

namespace fs = std::filesystem;

namespace {

const fs::path kGpuWatchHeader = fs::path(GPULAB_GRADING_DIR) / "gpu_watch.cuh";
const fs::path kUploadWatchSource = GPULAB_UPLOAD_WATCH_SOURCE;
const fs::path kStreamHoldSources[] = {GPULAB_STREAM_HOLD_SOURCE, GPULAB_LAUNCH_DESCRIPTION_SOURCE};

template <typename T>
void write_as(std::ofstream& out, const std::vector<double>& values) {
  for (const double v : values) {
    const T t = static_cast<T>(v);
    out.write(reinterpret_cast<const char*>(&t), sizeof t);
  }
}

// Calls f<T>() with T the element type named.
template <typename F>
auto with_type(const std::string& element, F&& f) {
  if (element == "float") return f(float{});
  if (element == "double") return f(double{});
  if (element == "int") return f(int{});
  if (element == "unsigned int") return f(static_cast<unsigned int>(0));
  if (element == "long") return f(long{});
  if (element == "unsigned char") return f(static_cast<unsigned char>(0));
  return f(std::size_t{});  // size_t
}

bool read_into(std::ifstream& in, const std::string& element, std::size_t count, std::vector<double>& to) {
  return with_type(element, [&](auto zero) {
    using T = decltype(zero);
    std::vector<T> raw(count);
    in.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(count * sizeof(T)));
    to.assign(raw.begin(), raw.end());
    return static_cast<bool>(in) || count == 0;
  });
}

std::string read_all(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

fs::path fresh_folder() {
  std::string pattern = (fs::temp_directory_path() / "gpulab-case-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("cannot make a folder in " + fs::temp_directory_path().string());
  return pattern;
}

// Why an include is refused, in the learner's terms.
std::string refused_include(const fs::path& including, const fs::path& included, bool solution) {
  return including.filename().string() + " includes " + included.string() +
         (solution ? ", the exercise's solution" : ", which is outside your folder") +
         ": a submission may include only files in its own folder, the standard library's and CUDA's headers.";
}

bool under(const fs::path& file, const fs::path& folder) {
  const auto [end, _] = std::mismatch(folder.begin(), folder.end(), file.begin(), file.end());
  return end == folder.end();
}

// Why a build reached past what a submission may read: its own folder (less any exercise's
// solution), the system's headers and the toolchain's; empty when it did not.
std::string reached_outside(const Spec& spec, const fs::path& file, const fs::path& deps, bool gpu) {
  std::error_code ec;
  const fs::path own = fs::weakly_canonical(fs::absolute(file).parent_path(), ec);
  std::vector<fs::path> allowed = build::toolchain_folders(gpu);
  allowed.push_back(own);
  if (gpu) allowed.push_back(fs::weakly_canonical(kGpuWatchHeader, ec));  // forced in by the grader
  const fs::path exercises = fs::weakly_canonical(spec.exercises_root(), ec);
  const fs::path itself = fs::weakly_canonical(fs::absolute(file), ec);
  for (const fs::path& listed : build::dependencies_listed(deps)) {
    const fs::path dep = fs::weakly_canonical(listed, ec);
    if (dep == itself) continue;
    // Any exercise's solution, under the folder the exercises lie in (the learner's own among them).
    const bool solution = dep.filename() == spec.solution && under(dep, exercises);
    const bool system = dep.string().rfind("/usr/", 0) == 0;
    const bool fine = !solution && (system || std::any_of(allowed.begin(), allowed.end(),
                                                          [&](const fs::path& a) { return under(dep, a); }));
    if (!fine) return refused_include(file, listed, solution);
  }
  return "";
}

// Before the build, the same rule for the includes written out in the learner's files (a
// failed build lists no dependencies): each `#include "x"` or `#include <x>` that names a file
// outside the allowed folders, found from the including file's folder as the compiler would.
std::string includes_outside(const Spec& spec, const fs::path& file) {
  static const std::regex include_line(R"(^\s*#\s*include\s*["<]([^">]+)[">])");
  std::error_code ec;
  const fs::path own = fs::weakly_canonical(fs::absolute(file).parent_path(), ec);
  const fs::path exercises = fs::weakly_canonical(spec.exercises_root(), ec);
  std::vector<fs::path> pending{fs::weakly_canonical(fs::absolute(file), ec)}, seen;
  while (!pending.empty() && seen.size() < 64) {
    const fs::path current = pending.back();
    pending.pop_back();
    if (std::find(seen.begin(), seen.end(), current) != seen.end()) continue;
    seen.push_back(current);
    std::stringstream text(read_all(current));
    for (std::string line; std::getline(text, line);) {
      std::smatch m;
      if (!std::regex_search(line, m, include_line)) continue;
      const fs::path named = m[1].str();
      const fs::path found = fs::weakly_canonical(named.is_absolute() ? named : current.parent_path() / named, ec);
      if (!fs::exists(found, ec)) continue;  // a system header, found on the include path
      const bool solution = found.filename() == spec.solution && under(found, exercises);
      if (solution || !under(found, own)) return refused_include(current, named, solution);
      pending.push_back(found);
    }
  }
  return "";
}

}  // namespace

Built build_submission(const Spec& spec, const fs::path& file, bool gpu, const fs::path& cache) {
  Built built;
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    built.log = "there is no file " + file.string() + "\n";
    return built;
  }
  if (std::string why = includes_outside(spec, file); !why.empty()) {
    built.refused = true;
    built.log = std::move(why) + "\n";
    return built;
  }
  // The driver is a function of the spec alone: one per exercise, written where its hash says.
  const std::string source = driver_source(spec);
  const fs::path drivers = cache / "drivers";
  fs::create_directories(drivers, ec);
  const fs::path driver = drivers / (spec.name + "-" + std::to_string(std::hash<std::string>{}(source)) + ".cu");
  if (!fs::exists(driver)) {
    const fs::path partial = driver.string() + "." + std::to_string(getpid()) + "-" +
                             std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
    std::ofstream(partial, std::ios::binary) << source;
    fs::rename(partial, driver, ec);
  }
  build::Request request;
  request.sources = {file};
  request.trusted_sources = {driver};
  if (gpu) {
    // On a GPU, the learner's copies pass through the grader's watch (gpu_watch.cuh), which the
    // emulator's runtime is on the emulator.
    request.forced_includes = {kGpuWatchHeader};
    request.trusted_sources.push_back(kUploadWatchSource);
    // The stream hold the driver's clock times the call with (lessons/common/event_clock.hpp).
    for (const fs::path& f : kStreamHoldSources) request.trusted_sources.push_back(f);
  }
  request.gpu = gpu;
  request.stop_at_reports = true;   // each case's error is its launch's
  request.plain_host_code = false;  // (one compile: a submission's host code is not timed)
  request.cache = cache / "programs";
  const build::Result result = build::build_program(request);
  built.ok = result.ok;
  built.program = result.program;
  built.log = result.log;
  if (built.ok) {
    if (std::string why = reached_outside(spec, file, result.program.parent_path() / "deps-0.d", gpu); !why.empty()) {
      built.ok = false;
      built.refused = true;
      built.log = std::move(why) + "\n";
      return built;
    }
  }
  if (!built.ok && built.log.find("undefined reference to") != std::string::npos &&
      built.log.find(spec.function) != std::string::npos) {
    built.log += "\nThe grader calls " + spec.entry + " — does " + file.filename().string() +
                 " define it with exactly these parameter types?\n";
  }
  return built;
}

ChildResult run_case(const Spec& spec, const fs::path& program, const CaseData& data, const Limits& limits, int warmup,
                     int reps, const std::vector<std::string>& wrapper) {
  ChildResult r;
  const fs::path folder = fresh_folder();
  const fs::path case_file = folder / "case.bin", out_file = folder / "out.bin", log_file = folder / "output.txt";
  {
    std::ofstream out(case_file, std::ios::binary);
    const std::int64_t header[2] = {warmup, reps};
    out.write(reinterpret_cast<const char*>(header), sizeof header);
    for (const Param& p : spec.params) {
      if (!p.pointer) {
        const double v = static_cast<double>(data.sizes.at(p.name));
        out.write(reinterpret_cast<const char*>(&v), sizeof v);
        continue;
      }
      const std::int64_t count = evaluate(p.size, data.sizes);
      out.write(reinterpret_cast<const char*>(&count), sizeof count);
      if (!p.input) continue;
      const std::vector<double>& values = data.arrays.at(p.name);
      with_type(p.element, [&](auto zero) {
        write_as<decltype(zero)>(out, values);
        return 0;
      });
    }
  }

  std::vector<std::string> args = wrapper;
  args.push_back(program.string());
  args.push_back(case_file.string());
  args.push_back(out_file.string());
  r.sandboxed = sandbox_support().available;
  if (r.sandboxed) args = sandboxed(args, folder, program, limits.gpu);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t child = fork();
  if (child == 0) {
    setpgid(0, 0);  // its own process group: a time limit kills whatever it started too
    const int fd = open(log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    // Host memory: the data segment and every private writable mapping (what malloc and the
    // emulator's device memory take), not the address space CUDA reserves without using it.
    const auto bytes = static_cast<rlim_t>(limits.memory_gb * 1073741824.0);
    const rlimit memory{bytes, bytes};
    setrlimit(RLIMIT_DATA, &memory);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  if (child > 0) setpgid(child, child);  // here too: a kill at the time limit must not find it unset
  if (child > 0) {
    for (;;) {
      const pid_t done = waitpid(child, &status, WNOHANG);
      if (done == child) break;
      if (std::chrono::steady_clock::now() - start > std::chrono::duration<double>(limits.seconds)) {
        r.timed_out = true;
        kill(-child, SIGKILL);
        waitpid(child, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    kill(-child, SIGKILL);  // what it left behind in its process group (in the sandbox, its namespace is gone)
    r.finished = WIFEXITED(status) && !r.timed_out;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    // The sandbox passes a program's death by signal N on as its own exit status 128 + N (the
    // driver never exits above 4).
    if (r.sandboxed && r.finished && r.exit_code > 128 && r.exit_code < 128 + 32) {
      r.signal = r.exit_code - 128;
      r.finished = false;
      r.exit_code = 0;
    }
  } else {
    r.output = "cannot start a process for the case: " + std::string(std::strerror(errno)) + "\n";
  }
  r.output += read_all(log_file);

  std::ifstream in(out_file, std::ios::binary);
  bool ok = static_cast<bool>(in);
  auto read_outputs = [&](std::map<std::string, std::vector<double>>& into) {
    for (const Param& p : spec.params) {
      if (!p.output || !ok) continue;
      ok = read_into(in, p.element, static_cast<std::size_t>(evaluate(p.size, data.sizes)), into[p.name]);
    }
  };
  read_outputs(r.outputs);
  if (reps > 0) {
    read_outputs(r.last_outputs);
    for (int i = 0; ok && i < reps; ++i) {
      std::array<double, 4> t{};
      in.read(reinterpret_cast<char*>(t.data()), sizeof t);
      ok = static_cast<bool>(in);
      if (ok) r.times.push_back(t);
    }
  }
  r.outputs_read = ok && r.finished;
  std::error_code ec;
  fs::remove_all(folder, ec);
  return r;
}

}  // namespace gpulab::grading
