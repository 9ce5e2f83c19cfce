// A failed assert() in a kernel, as on a GPU: the message names the kernel's block and thread in
// CUDA's words, the thread stops, and the launch fails with cudaErrorAssert — the host goes on and
// reads that error, where glibc's assert would have ended the whole process. Outside a kernel it
// is glibc's assert: the message, then abort().
//
// GCC's <assert.h> calls __assert_fail, which this definition takes the place of for the whole
// program (the emulator's library is linked ahead of the C library); it is declared noexcept, so
// the thread is stopped without unwinding, as the checked mode stops a wild access.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "emulator/execution/scheduler.hpp"
#include "emulator/language/cuda_language.hpp"

namespace {

std::string dims(const uint3& v) {
  return "[" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + "]";
}

}  // namespace

extern "C" [[noreturn]] void __assert_fail(const char* assertion, const char* file, unsigned int line,
                                           const char* function) noexcept {
  namespace emu = gpulab::emulated;
  if (!emu::in_kernel()) {
    std::fprintf(stderr, "%s: %s:%u: %s: Assertion `%s' failed.\n", program_invocation_short_name, file, line, function,
                 assertion);
    std::fflush(stderr);
    std::abort();
  }
  const std::string text = std::string(file) + ":" + std::to_string(line) + ": " + function +
                           ": block: " + dims(emu::detail::current_block->block_idx) +
                           ", thread: " + dims(::threadIdx) + " Assertion `" + assertion + "` failed.";
  std::fprintf(stderr, "%s\n", text.c_str());
  std::fflush(stderr);
  emu::stop_running_thread(std::make_exception_ptr(emu::KernelFault(cudaErrorAssert, text)));
}
