// The source rewrite of rewrite.hpp: one pass over the code, each position offered to the jobs of
// rewrite_jobs.hpp in turn, then their edits applied in order.
#include "emulator/rewrite/rewrite.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>
#include <vector>

#include "base/text_file.hpp"
#include "emulator/rewrite/phased_kernel.hpp"
#include "emulator/rewrite/rewrite_jobs.hpp"
#include "emulator/rewrite/rewrite_scan.hpp"

namespace gpulab::emulated {

using namespace scan;

std::string read_source(const std::string& path) {
  std::optional<std::string> text = read_text_file(path);
  if (!text) throw std::invalid_argument("cannot read " + path);
  return std::move(*text);
}

std::string rewrite_cuda(const std::string& s, const std::string& file, const RewriteOptions& options) {
  const std::vector<bool> code = code_mask(s);
  jobs::Source src{s, code, file, options, {}, {}, {}, {}};
  if (!options.backend_namespace.empty()) {
    try {
      src.own = find_launchers(s, file);
    } catch (const std::invalid_argument&) {
      // (the dispatch step reports it)
    }
  }
  // The emulator's build's jobs, in the order they look at a position.
  static constexpr jobs::Job emulated_jobs[] = {jobs::kernel_definition, jobs::dynamic_shared, jobs::static_shared,
                                                jobs::asm_statement,     jobs::volatile_note,  jobs::kernel_launch};
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!code[i]) continue;
    jobs::qualify_own_launcher_call(src, i);
    if (const auto next = jobs::backend_namespace(src, i)) {
      i = *next;
      continue;
    }
    if (!options.emulated) continue;
    for (const jobs::Job job : emulated_jobs) {
      if (const auto next = job(src, i)) {
        i = *next;
        break;
      }
    }
  }
  std::vector<jobs::Edit>& edits = src.edits;

  // As nvcc does, the CUDA runtime's header comes first (for the emulator, the emulator's).
  std::string out = std::string(options.emulated ? "#include <cuda_runtime.h>\n" : "") + "#line 1 \"" + file + "\"\n";
  std::size_t at = 0;
  // (Stable: an insertion a job noted first stays before another's edit at the same place.)
  std::stable_sort(edits.begin(), edits.end(),
                   [](const jobs::Edit& a, const jobs::Edit& b) { return a.begin < b.begin; });
  for (const jobs::Edit& e : edits) {
    out.append(s, at, e.begin - at);
    out += e.text;
    at = e.end;
  }
  out.append(s, at, std::string::npos);
  if (options.emulated) out = jobs::add_phased_copies(out, file);
  if (options.emulated && options.backend_namespace.empty() && !options.header) {
    // A whole program: it exits non-zero when the checked mode reported an error.
    out += std::string(
               "\n[[maybe_unused]] static const int gpulab_checked_exit = "
               "::gpulab::emulated::check::exit_nonzero_on_errors(") +
           (options.stop_at_reports ? "false" : "true") + ");\n";
  }
  return out;
}

}  // namespace gpulab::emulated
