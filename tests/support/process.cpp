#include "support/process.hpp"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <stdexcept>

namespace gpulab::test {

ProcessResult run_command(const std::string& command, int timeout_seconds) {
  // The subshell keeps the command's own redirections (> file) apart from the capture.
  const std::string full = "(timeout " + std::to_string(timeout_seconds) + " " + command + ") 2>&1";
  FILE* pipe = popen(full.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("popen failed: " + command);
  ProcessResult result;
  std::array<char, 4096> buffer{};
  while (std::size_t got = std::fread(buffer.data(), 1, buffer.size(), pipe)) result.output.append(buffer.data(), got);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::string executable(const std::string& name) { return "'" + std::string(GPULAB_BIN_DIR) + "/" + name + "'"; }

}  // namespace gpulab::test
