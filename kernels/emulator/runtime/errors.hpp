#pragma once
// The emulated runtime's error state: CUDA's "last error", per host thread, with the emulator's
// explanation of it. Unlike a GPU's, a fault in an emulated kernel is not sticky: synchronising
// calls return it until cudaGetLastError() clears it, and then the program (a test run, the app,
// a grading session) can go on.
#include <string>

#include "emulator/runtime/runtime_types.hpp"

namespace gpulab::emulated {

// CUDA's message for a code: "invalid argument (cudaErrorInvalidValue)".
const char* error_message(cudaError_t code);
void record_error(cudaError_t code, std::string detail);
// The explanation of the last error recorded on this thread ("" when none): the launch, its
// configuration, the file and line, and what the emulator saw.
const std::string& error_detail();
// The largest dynamic shared memory any kernel was allowed with cudaFuncSetAttribute.
int largest_dynamic_shared_limit();

}  // namespace gpulab::emulated
