#include "common/crossover.hpp"

#include <map>
#include <optional>

#include <fmt/format.h>

namespace gpulab {

namespace {

struct Best {
  double ms = 0;
  std::string variant;
};

struct Side {
  std::optional<Best> cpu, gpu;
};

// For each n, the fastest passed CPU row and the fastest passed GPU row by one timing.
std::map<std::int64_t, Side> best_by_size(const std::vector<Result>& results, std::optional<Stats> Result::*gpu_time) {
  std::map<std::int64_t, Side> sides;
  for (const Result& r : results) {
    if (r.status != Status::passed || r.backend == Backend::emulated) continue;
    const bool gpu = r.backend == Backend::gpu;
    const std::optional<Stats>& t = gpu ? r.*gpu_time : r.total;
    if (!t) continue;
    std::optional<Best>& slot = gpu ? sides[r.problem.n].gpu : sides[r.problem.n].cpu;
    if (!slot || t->median < slot->ms) slot = Best{t->median, r.variant};
  }
  return sides;
}

std::optional<std::string> sentence(const std::vector<Result>& results, std::optional<Stats> Result::*gpu_time,
                                    const char* what) {
  std::int64_t from = -1;  // the GPU wins at this size and every larger one; -1: not yet
  std::int64_t last = -1;
  Side last_side;
  int compared = 0;
  for (const auto& [n, side] : best_by_size(results, gpu_time)) {
    if (!side.cpu || !side.gpu) continue;
    ++compared;
    if (side.gpu->ms < side.cpu->ms) {
      if (from < 0) from = n;
    } else {
      from = -1;
    }
    last = n;
    last_side = side;
  }
  if (compared == 0) return std::nullopt;
  const std::string at_last =
      fmt::format("at n = {}: GPU {} ({}) against CPU {} ({})", last, format_ms(last_side.gpu->ms),
                  last_side.gpu->variant, format_ms(last_side.cpu->ms), last_side.cpu->variant);
  if (from >= 0) return fmt::format("{}: the GPU is faster from n = {} on; {}", what, from, at_last);
  return fmt::format("{}: the GPU never overtakes the CPU in these sizes; {}", what, at_last);
}

}  // namespace

std::vector<std::string> crossover_summary(const std::vector<Result>& results) {
  std::vector<std::string> lines;
  if (auto s = sentence(results, &Result::total, "End to end (copies included)")) lines.push_back(*s);
  if (auto s = sentence(results, &Result::kernel, "Kernel alone (data already on the GPU)")) lines.push_back(*s);
  return lines;
}

}  // namespace gpulab
