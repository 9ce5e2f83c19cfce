// Where the plain half of a learner's file finds the thread loops of its instrumented half
// (kernel_threads.hpp: launch_kernel): each instrumented launch leaves an entry in the
// section gpulab_thread_loops, whose bounds the linker names.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "emulator/language/cuda_language.hpp"

extern "C" {
// (Weak: a program with no instrumented launch has no such section.)
extern const gpulab::emulated::detail::LoopsEntry __start_gpulab_thread_loops[] __attribute__((weak));
extern const gpulab::emulated::detail::LoopsEntry __stop_gpulab_thread_loops[] __attribute__((weak));
}

namespace gpulab::emulated::detail {

namespace {
// A type's name as both halves spell it: a type local to a file (a lambda in a static function)
// is marked with a leading '*', which asks for its own half's type_info alone.
const char* plain_name(const std::type_info& type) {
  const char* name = type.name();
  return name[0] == '*' ? name + 1 : name;
}
}  // namespace

ThreadLoops instrumented_loops(const std::type_info& body, const char* kernel) {
  // (Neither can happen in a program gpulab_run built: a launch's body is a type of its file's
  // own, rewrite_jobs.cpp. Said, and the program ends, rather than a launch running the wrong loops.)
  const auto refuse = [&](const char* why) {
    std::fprintf(stderr, "gpulab emulator: the launch of %s: %s\n", kernel, why);
    std::exit(1);
  };
  const char* wanted = plain_name(body);
  const LoopsEntry* found = nullptr;
  for (const LoopsEntry* e = __start_gpulab_thread_loops; e != __stop_gpulab_thread_loops; ++e) {
    if (std::strcmp(plain_name(*e->body), wanted) != 0) continue;
    if (found != nullptr && found->loops.checked != e->loops.checked) refuse("two instrumented builds of it");
    found = e;
  }
  if (found == nullptr) refuse("no instrumented build of it (was the program built by gpulab_run?)");
  return found->loops;
}

}  // namespace gpulab::emulated::detail
