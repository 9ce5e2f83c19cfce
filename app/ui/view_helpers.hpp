#pragma once
// Small helpers the app's views share.
#include <algorithm>
#include <chrono>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "base/text_file.hpp"
#include "common/lesson.hpp"
#include "common/results.hpp"

namespace gpulab::app {

// A file's text, or "" with `error` set to what went wrong.
inline std::string read_text(const std::string& path, std::string& error) {
  std::optional<std::string> text = read_text_file(path);
  if (!text) error = "cannot open " + path;
  return text.value_or("");
}

// Whether a background job has finished (its result or its exception is waiting).
template <typename Future>
bool ready(const Future& f) {
  return f.valid() && f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

inline bool has(const std::vector<Backend>& backends, Backend b) {
  return std::find(backends.begin(), backends.end(), b) != backends.end();
}

// A result's key in the badges: "variant (backend)".
inline std::string badge_key(const Result& r) { return r.variant + " (" + std::string(to_string(r.backend)) + ")"; }

// Whether a lesson's work is arithmetic (GFLOP/s) rather than memory traffic (GB/s).
inline bool compute_bound(const Lesson& lesson) {
  return gpulab::compute_bound(lesson.counts(lesson.problem(lesson.default_n)));
}

}  // namespace gpulab::app
