#pragma once
// Runs a command through the shell with a time limit and captures its output and exit code: the
// command-line tests drive the real executables this way.
#include <string>

namespace gpulab::test {

struct ProcessResult {
  int exit_code = -1;  // 124 when the time limit ended it
  std::string output;  // stdout and stderr together
};

ProcessResult run_command(const std::string& command, int timeout_seconds = 300);

// The full path of a built executable, quoted for the shell.
std::string executable(const std::string& name);

}  // namespace gpulab::test
