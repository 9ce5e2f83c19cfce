// Building a submission with its driver, and running one case in a child process.
#include "grading/submission.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <thread>

#include "grading/driver.hpp"
#include "run/cuda_build.hpp"

namespace gpulab::grading {

namespace fs = std::filesystem;

namespace {

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

}  // namespace

Built build_submission(const Spec& spec, const fs::path& file, bool gpu, const fs::path& cache) {
  Built built;
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    built.log = "there is no file " + file.string() + "\n";
    return built;
  }
  // The driver is a function of the spec alone: one per exercise, written where its hash says.
  const std::string source = driver_source(spec);
  const fs::path drivers = cache / "drivers";
  fs::create_directories(drivers, ec);
  const fs::path driver = drivers / (spec.name + "-" + std::to_string(std::hash<std::string>{}(source)) + ".cu");
  if (!fs::exists(driver)) {
    const fs::path partial = driver.string() + "." + std::to_string(getpid());
    std::ofstream(partial, std::ios::binary) << source;
    fs::rename(partial, driver, ec);
  }
  build::Request request;
  request.sources = {file};
  request.trusted_sources = {driver};
  request.gpu = gpu;
  request.stop_at_reports = true;  // each case's error is its launch's
  request.cache = cache / "programs";
  const build::Result result = build::build_program(request);
  built.ok = result.ok;
  built.program = result.program;
  built.log = result.log;
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
    r.finished = WIFEXITED(status) && !r.timed_out;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
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
      std::array<double, 3> t{};
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
