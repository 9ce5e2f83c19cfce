#pragma once
// A learner's .cu built for the emulator in two halves, so that only its device code pays for the
// checked mode (cuda_build.cpp): the same rewritten file compiled twice,
//   - instrumented (-DGPULAB_INSTRUMENTED_HALF and the checked mode's flags): its kernels, inlined
//     into the emulator's thread loops, each launch leaving its loops where the other half finds
//     them (emulator/execution/kernel_threads.hpp: launch_kernel);
//   - plain optimised C++ (-DGPULAB_PLAIN_HOST): its host code, whose launches run the
//     instrumented half's loops;
// then the instrumented objects joined to the plain ones: their functions renamed (their own
// instrumented copies, called by their kernels), their data made weak (one copy of each variable,
// the plain half's: a __constant__ the host wrote is the one the kernel reads), their start-up code
// dropped (the plain half constructs every global once).
#include <filesystem>
#include <string>
#include <vector>

namespace gpulab::build {

// Why a program whose learner files are `sources` (their text) must be built in one instrumented
// piece instead, or "" where two halves do: a device variable of internal linkage (static, or in
// an unnamed namespace: each half would have its own), a kernel launched through a pointer
// (cudaLaunchKernel: the pointer names the plain half's kernel).
std::string one_piece_reason(const std::vector<std::string>& sources);

// Makes the instrumented halves' objects ready to link beside the plain halves' (in place). The
// tools' messages go into `log`; false where one failed.
bool join_instrumented_halves(const std::vector<std::filesystem::path>& objects, const std::filesystem::path& work,
                              std::string& log);

}  // namespace gpulab::build
