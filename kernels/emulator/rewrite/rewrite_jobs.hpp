#pragma once
// The source rewrite's jobs (rewrite.cpp runs them): each the rule for one construct of a kernel
// file, looking at one position of the code and, where the construct there is its own, noting the
// edit that replaces it. Internal to the emulator's build tools; tests/rewrite_test.cpp holds a
// row per job.
#include <cstddef>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "emulator/rewrite/rewrite.hpp"
#include "emulator/rewrite/rewrite_scan.hpp"

namespace gpulab::emulated::jobs {

// Replace [begin, end) with text (begin == end: insert).
struct Edit {
  std::size_t begin, end;
  std::string text;
};

// The file being rewritten and what the jobs learn as they go.
struct Source {
  const std::string& s;
  const std::vector<bool>& code;  // scan::code_mask(s)
  const std::string& file;
  const RewriteOptions& options;
  std::vector<Edit> edits;
  std::vector<scan::Launcher> own;                                    // the file's launchers (a backend's build)
  std::vector<std::pair<std::size_t, std::size_t>> kernel_bodies;     // the file's kernels' {…}, as found
  std::optional<std::set<std::string, std::less<>>> plain_functions;  // phased_kernel.hpp's, once needed

  // `word` at i, as a whole word of code.
  bool word_at(std::size_t i, std::string_view word) const;
  std::size_t skip_space(std::size_t i) const;
};

// A job: where the construct at i is its own, the position the scan goes on after (i when it
// took only the word); nullopt where it is not.
using Job = std::optional<std::size_t> (*)(Source&, std::size_t i);

// A call of one of the file's own launchers, in a backend's build: named qualified, as that
// build's (the header's declaration of the one name would otherwise be found too, by
// argument-dependent lookup, and make the call ambiguous). Takes no position: the word is still
// looked at by the jobs below.
void qualify_own_launcher_call(Source& src, std::size_t i);
// namespace gpulab::X { -> namespace gpulab::X {} namespace gpulab::<backend>::X { using namespace ::gpulab::X;
std::optional<std::size_t> backend_namespace(Source& src, std::size_t i);

// The emulator's build only:
// __global__ void k(...) { -> __global__ GPULAB_INLINED_KERNEL void k(...) {
std::optional<std::size_t> kernel_definition(Source& src, std::size_t i);
// extern __shared__ T name[]; -> T (&name)[] = ::gpulab::emulated::dynamic_shared<T>(…);
std::optional<std::size_t> dynamic_shared(Source& src, std::size_t i);
// __shared__ T name[N]; in a function -> auto& name = ::gpulab::emulated::static_shared<T[N]>(…);
std::optional<std::size_t> static_shared(Source& src, std::size_t i);
// asm volatile("ptx" : outputs : inputs); -> ::gpulab::emulated::ptx::run("ptx", {operands})
std::optional<std::size_t> asm_statement(Source& src, std::size_t i);
// volatile in device code: noted where it runs (the warp-synchronous style, right only in lockstep)
std::optional<std::size_t> volatile_note(Source& src, std::size_t i);
// kernel<<<config>>>(args) -> ::gpulab::emulated::launch_kernel(…)
std::optional<std::size_t> kernel_launch(Source& src, std::size_t i);

}  // namespace gpulab::emulated::jobs
