#include "common/online_softmax_steps.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>

namespace gpulab {

namespace steps = emulated::shared_steps;

namespace {

constexpr std::size_t kLanes = 32;  // keys a tile: a lane each

std::vector<float> lane_values(const steps::WarpExchange& e) {
  std::vector<float> v(kLanes);
  std::memcpy(v.data(), e.bits, sizeof e.bits);
  return v;
}

std::uint32_t array_named(const steps::Trace& t, const std::string& name) {
  for (std::size_t a = 0; a < t.arrays.size(); ++a) {
    if (t.arrays[a].name == name) return static_cast<std::uint32_t>(a);
  }
  throw std::runtime_error("the recording of " + t.kernel + " has no shared array '" + name +
                           "': the online softmax is read from the fused attention kernel's");
}

// The softmax of every score at once and its weighted sum of V's rows, in float64.
std::vector<double> exact_output(const std::vector<float>& scores, const std::vector<std::vector<float>>& rows,
                                 std::size_t d) {
  double m = -std::numeric_limits<double>::infinity(), sum = 0;
  for (float s : scores) m = std::max(m, static_cast<double>(s));
  std::vector<double> out(d, 0.0);
  for (std::size_t j = 0; j < scores.size(); ++j) {
    const double p = std::exp(static_cast<double>(scores[j]) - m);
    sum += p;
    for (std::size_t c = 0; c < d; ++c) out[c] += p * rows[j][c];
  }
  for (double& o : out) o /= sum;
  return out;
}

OnlineSoftmaxQuery replay(const steps::Trace& t, unsigned warp, std::uint32_t values, std::size_t d, std::size_t seq) {
  std::map<std::uint32_t, std::vector<const steps::WarpExchange*>> by_phase;
  for (const steps::WarpExchange& e : t.exchanges) {
    if (e.warp == warp) by_phase[e.phase].push_back(&e);
  }
  OnlineSoftmaxQuery q;
  q.query = warp;
  float m = -INFINITY, l = 0;
  std::vector<float> out(d, 0.0f), all_scores;
  std::vector<std::vector<float>> all_rows;
  for (const auto& [phase, list] : by_phase) {
    if (list.size() < 2 || phase >= t.after.size()) continue;  // a tile has a maximum's and a broadcast's
    OnlineSoftmaxTile tile;
    tile.first_key = q.tiles.size() * kLanes;
    tile.last_key = std::min(tile.first_key + kLanes, seq) - 1;
    tile.scores = lane_values(*list.front());
    tile.weights = lane_values(*list.back());
    tile.tile_max = *std::max_element(tile.scores.begin(), tile.scores.end());
    const float m_new = std::max(m, tile.tile_max);
    tile.correction = std::exp(m - m_new);  // 0 the first time: m = −inf
    for (float p : tile.weights) tile.tile_sum += p;
    l = l * tile.correction + tile.tile_sum;
    const std::vector<std::uint32_t>& words = t.after[phase][values];
    for (std::size_t r = 0; r < kLanes; ++r) {
      std::vector<float> row(d);
      std::memcpy(row.data(), words.data() + r * d, d * sizeof(float));
      for (std::size_t c = 0; c < d; ++c)
        out[c] = (r == 0 ? out[c] * tile.correction : out[c]) + tile.weights[r] * row[c];
      q.weights_agree =
          std::max(q.weights_agree, static_cast<double>(std::fabs(tile.weights[r] - std::exp(tile.scores[r] - m_new))));
      all_scores.push_back(tile.scores[r]);
      if (!std::isinf(tile.scores[r])) ++q.keys_seen;
      all_rows.push_back(std::move(row));
    }
    m = m_new;
    tile.running_max = m, tile.running_sum = l, tile.output = out;
    q.tiles.push_back(std::move(tile));
  }
  if (q.tiles.empty()) return q;
  q.exact = exact_output(all_scores, all_rows, d);
  for (OnlineSoftmaxTile& tile : q.tiles) {
    for (std::size_t c = 0; c < d; ++c) {
      tile.distance = std::max(tile.distance, std::fabs(tile.output[c] / tile.running_sum - q.exact[c]));
    }
  }
  return q;
}

}  // namespace

OnlineSoftmaxSteps online_softmax_steps(const StepRecording& recording) {
  if (recording.traces.empty()) throw std::runtime_error(recording.variant + " recorded no launch");
  const steps::Trace& t = recording.traces.front();
  const std::uint32_t values = array_named(t, "values");
  const steps::ArrayInfo& info = t.arrays[values];
  if (info.extents.size() != 2 || info.extents[0] != kLanes || info.element_bytes != 4) {
    throw std::runtime_error("'values' in " + t.kernel + " is not a tile of 32 rows of floats");
  }
  OnlineSoftmaxSteps s;
  s.kernel = t.kernel;
  s.head_dim = info.extents[1];
  const auto seq = static_cast<std::size_t>(recording.problem.n);
  for (unsigned w = 0; w < t.threads / kLanes && w < seq; ++w) {
    OnlineSoftmaxQuery q = replay(t, w, values, s.head_dim, seq);
    if (q.tiles.empty()) continue;
    if (q.weights_agree > 1e-5) {
      throw std::runtime_error(fmt::format(
          "{}'s warp operations are not the scores and weights of an online softmax (a weight {} from e^(s - m))",
          t.kernel, q.weights_agree));
    }
    s.queries.push_back(std::move(q));
  }
  if (s.queries.empty()) throw std::runtime_error(t.kernel + " made no warp operations to read a softmax from");
  return s;
}

std::string format_online_softmax_steps(const OnlineSoftmaxSteps& steps, std::size_t query) {
  const OnlineSoftmaxQuery& q = steps.queries.at(std::min(query, steps.queries.size() - 1));
  std::string text = fmt::format(
      "query {} of the first head, {} (head_dim {}): the online softmax tile by tile\n"
      "{:>10} {:>10} {:>10} {:>12} {:>10} {:>10} {:>22} {:>12}\n",
      q.query, steps.kernel, steps.head_dim, "keys", "tile max", "m", "e^(m_old-m)", "tile sum p", "l", "out[0..1] / l",
      "|out/l - exact|");
  for (const OnlineSoftmaxTile& t : q.tiles) {
    text += fmt::format("{:>10} {:>10.4g} {:>10.4g} {:>12.4g} {:>10.4g} {:>10.4g} {:>10.4g} {:>11.4g} {:>12.2e}\n",
                        fmt::format("{}-{}", t.first_key, t.last_key), t.tile_max, t.running_max, t.correction,
                        t.tile_sum, t.running_sum, t.output[0] / t.running_sum,
                        t.output.size() > 1 ? t.output[1] / t.running_sum : 0.0f, t.distance);
  }
  text += fmt::format("{:>10} {:>56} {:>10.4g} {:>11.4g}   (the softmax of its {} score{} at once, float64)\n", "exact",
                      "", q.exact[0], q.exact.size() > 1 ? q.exact[1] : 0.0, q.keys_seen, q.keys_seen == 1 ? "" : "s");
  return text;
}

}  // namespace gpulab
