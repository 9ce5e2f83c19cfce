// Running a case in a sandbox: see sandbox.hpp.
#include "grading/sandbox.hpp"

#include <cstdlib>
#include <sstream>

#include "run/cuda_build.hpp"

extern char** environ;

namespace gpulab::grading {

namespace fs = std::filesystem;

namespace {

// What the case may keep of the grader's environment: its own settings and CUDA's, nothing else
// (a course platform's tokens stay out).
bool kept(const std::string& name) {
  for (const char* prefix : {"GPULAB_", "CUDA_", "NVIDIA_", "LD_LIBRARY_PATH"}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

std::string bwrap_path() {
  if (const char* own = std::getenv("GPULAB_BWRAP"); own != nullptr && fs::exists(own)) return own;
  for (const char* dir : {"/usr/bin", "/bin", "/usr/local/bin"}) {
    const fs::path p = fs::path(dir) / "bwrap";
    if (fs::exists(p)) return p.string();
  }
  return "";
}

}  // namespace

std::vector<std::string> sandboxed(const std::vector<std::string>& command, const fs::path& folder,
                                   const fs::path& program, bool gpu) {
  std::vector<std::string> args = {bwrap_path(), "--unshare-all", "--die-with-parent", "--new-session", "--clearenv"};
  auto add = [&](std::initializer_list<std::string> more) { args.insert(args.end(), more); };
  add({"--setenv", "PATH", "/usr/local/cuda/bin:/usr/bin:/bin", "--setenv", "HOME", folder.string(), "--setenv",
       "TMPDIR", "/tmp"});
  std::vector<fs::path> library_dirs;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq == std::string::npos || !kept(entry.substr(0, eq))) continue;
    add({"--setenv", entry.substr(0, eq), entry.substr(eq + 1)});
    if (entry.rfind("LD_LIBRARY_PATH=", 0) == 0) {
      std::stringstream dirs(entry.substr(eq + 1));
      for (std::string dir; std::getline(dirs, dir, ':');) {
        if (!dir.empty() && fs::is_directory(dir)) library_dirs.emplace_back(dir);
      }
    }
  }
  add({"--ro-bind", "/usr", "/usr"});
  for (const char* dir : {"/lib", "/lib64", "/lib32", "/bin", "/sbin", "/etc/ld.so.cache", "/etc/ld.so.conf",
                          "/etc/ld.so.conf.d", "/etc/alternatives"}) {
    add({"--ro-bind-try", dir, dir});
  }
  add({"--proc", "/proc", "--tmpfs", "/tmp"});
  if (gpu) {
    // The driver's device files and what it reads of the machine; the toolkit (compute-sanitizer)
    // where it is not under /usr.
    add({"--dev-bind", "/dev", "/dev", "--ro-bind", "/sys", "/sys"});
    const std::string nvcc = build::nvcc_path();
    if (!nvcc.empty() && fs::exists(nvcc)) {
      const fs::path toolkit = fs::canonical(nvcc).parent_path().parent_path();
      if (toolkit.string().rfind("/usr/", 0) != 0) add({"--ro-bind", toolkit.string(), toolkit.string()});
    }
  } else {
    add({"--dev", "/dev"});
  }
  for (const fs::path& dir : library_dirs) add({"--ro-bind-try", dir.string(), dir.string()});
  add({"--bind", folder.string(), folder.string(), "--ro-bind", program.string(), program.string(), "--chdir",
       folder.string(), "--"});
  args.insert(args.end(), command.begin(), command.end());
  return args;
}

const SandboxSupport& sandbox_support() {
  static const SandboxSupport support = [] {
    SandboxSupport s;
    if (const char* off = std::getenv("GPULAB_NO_SANDBOX"); off != nullptr && std::string(off) == "1") {
      s.why_not = "GPULAB_NO_SANDBOX=1 turned it off";
      return s;
    }
    if (bwrap_path().empty()) {
      s.why_not = "bubblewrap is not installed (Debian: apt install bubblewrap; tools/setup.sh installs it)";
      return s;
    }
    // A trial run: some containers refuse the namespaces bubblewrap needs.
    const fs::path here = fs::temp_directory_path();
    std::string command;
    for (const std::string& a : sandboxed({"/bin/true"}, here, "/bin/true", false))
      command += build::shell_quote(a) + " ";
    std::string log;
    if (build::run_logged(command, log) != 0) {
      s.why_not = "bubblewrap cannot make its namespaces here (" + log.substr(0, log.find('\n')) +
                  "): a container may need --privileged, or unprivileged user namespaces enabled";
      return s;
    }
    s.available = true;
    return s;
  }();
  return support;
}

}  // namespace gpulab::grading
