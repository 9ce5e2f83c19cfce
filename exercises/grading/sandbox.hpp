#pragma once
// Each graded case runs in a sandbox of its own (bubblewrap, from Debian's `bubblewrap`): a new
// mount namespace that holds the system's read-only folders (/usr, /lib, /etc's loader files),
// the built program read-only and the case's own temporary folder — nothing of the submissions,
// the gradebook, the reports, the build cache or GPU Lab's tree (its solutions) — with no network,
// its own process-ID namespace (every process the case started dies with it, a detached one too)
// and a cleared environment. On the GPU the device files and /sys are added, as CUDA needs them.
// Where bubblewrap is missing or the kernel refuses its namespaces (some containers), the grader
// runs cases as before and says so in every report and gradebook row.
#include <filesystem>
#include <string>
#include <vector>

namespace gpulab::grading {

struct SandboxSupport {
  bool available = false;
  std::string why_not;  // when not: what is missing, and how to get it
};

// Probed once per process: bubblewrap from /usr/bin (or GPULAB_BWRAP, a bwrap elsewhere);
// GPULAB_NO_SANDBOX=1 turns the sandbox off (to see what it prevents).
const SandboxSupport& sandbox_support();

// The command that runs `command` (a program and its arguments) inside the sandbox, with `folder`
// its one writable folder and its working directory, and `program` (read-only) the file it runs.
std::vector<std::string> sandboxed(const std::vector<std::string>& command, const std::filesystem::path& folder,
                                   const std::filesystem::path& program, bool gpu);

// What a report says when the cases were not sandboxed.
inline constexpr const char* kNotSandboxed =
    "NOT SANDBOXED: the submissions ran with the grader's rights (a submission could have changed files "
    "the grader can write)";

}  // namespace gpulab::grading
