#pragma once
// "ROWSxCOLS" (4096x1000): a --shape of two sizes, as lessons 12 and 17 take it.
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace gpulab {

// {rows, cols}, each from `least` to `most`; nullopt for anything else.
inline std::optional<std::pair<std::int64_t, std::int64_t>> parse_rows_by_cols(std::string_view text,
                                                                               std::int64_t least, std::int64_t most) {
  const std::size_t x = text.find('x');
  if (x == std::string_view::npos) return std::nullopt;
  const auto parse = [&](std::string_view s, std::int64_t& v) {
    const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), v);
    return error == std::errc() && end == s.data() + s.size() && v >= least && v <= most;
  };
  std::int64_t rows = 0, cols = 0;
  if (!parse(text.substr(0, x), rows) || !parse(text.substr(x + 1), cols)) return std::nullopt;
  return std::pair{rows, cols};
}

}  // namespace gpulab
