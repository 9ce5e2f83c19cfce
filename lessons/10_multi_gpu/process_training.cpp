// Lesson 10's data-parallel training on the CPU, one process per share (process_training.hpp).
#include "10_multi_gpu/process_training.hpp"

#include <cmath>
#include <span>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "mlp/mlp_cpu.hpp"
#include "mlp/mlp_data.hpp"
#include "mlp/mlp_train.hpp"
#include "multi_process/process_world.hpp"

namespace gpulab::multi_gpu_runs {

namespace {

namespace mp = multi_process;
using mlp::Layout;

constexpr int kPerProcess = 128;
constexpr float kRate = 2.0f;

// The gradient of share s (and its loss, as the last element): what process s computes.
std::vector<float> share_gradients(const Layout& net, std::span<const float> params, const mlp::Data& data, int s) {
  const auto k = static_cast<std::size_t>(s);
  const std::size_t xs = std::size_t{kPerProcess} * net.inputs(), ts = std::size_t{kPerProcess} * net.outputs();
  std::vector<float> g(params.size() + 1);
  g.back() = mlp::gradients<float, float>(net, params, std::span<const float>(data.x).subspan(k * xs, xs),
                                          std::span<const float>(data.y).subspan(k * ts, ts), kPerProcess,
                                          mlp::Loss::bce, std::span<float>(g).first(params.size()));
  return g;
}

// params −= lr · (the sum of the shares' gradients ÷ shares); returns the mean loss.
float apply(std::span<float> params, std::span<const float> sum, int shares) {
  const float average = 1.0f / static_cast<float>(shares);
  for (std::size_t i = 0; i < params.size(); ++i) params[i] -= kRate * (sum[i] * average);
  return sum.back() * average;
}

}  // namespace

std::string cpu_train_report(const std::string& dataset_name, int epochs) {
  const auto dataset = mlp::parse_dataset(dataset_name);
  if (!dataset) throw std::invalid_argument("unknown dataset '" + dataset_name + "' (xor, moons, circles, spirals)");
  const mp::World& world = mp::world();
  const int shares = world.size, steps = epochs > 0 ? epochs : 300;
  const Layout net{{2, 16, 1}};
  // Every process makes the same data and the same first parameters from the same seed, and
  // keeps its share of the examples: rows rank · 128 … rank · 128 + 127.
  const mlp::Data data = mlp::make_dataset(*dataset, kPerProcess * shares, 7);
  const std::vector<float> initial = mlp::initial_parameters(net, 7);
  std::vector<float> mine = initial, alone = initial, whole = initial;
  double largest_whole_gap = 0;
  bool identical = true;
  std::string table;
  for (int step = 1; step <= steps; ++step) {
    // [snippet:process_training_step]
    // This process's share, summed with every other process's by MPI_Allreduce.
    std::vector<float> sum = share_gradients(net, mine, data, world.rank);
    mp::sum_everywhere(sum);
    const float loss = apply(mine, sum, shares);
    if (!mp::same_everywhere(mp::checksum(std::as_bytes(std::span<const float>(mine))))) {
      mp::abort_job(
          fmt::format("after step {} the processes' parameters differ (their checksums were all-reduced)", step));
    }
    // [/snippet]
    // The same algorithm in one process: every share in turn, summed in rank order.
    std::vector<float> one(alone.size() + 1, 0.0f);
    for (int s = 0; s < shares; ++s) {
      const std::vector<float> g = share_gradients(net, alone, data, s);
      for (std::size_t i = 0; i < one.size(); ++i) one[i] += g[i];
    }
    const float alone_loss = apply(alone, one, shares);
    // And lesson 07's step on the whole batch at once.
    const float whole_loss = mlp::cpu_step(net, whole, data.x, data.y, data.count, kRate, mlp::Loss::bce);
    identical = identical && alone_loss == loss && alone == mine;
    for (std::size_t i = 0; i < whole.size(); ++i)
      largest_whole_gap = std::max(largest_whole_gap, static_cast<double>(std::abs(whole[i] - mine[i])));
    if (step == 1 || step % std::max(1, steps / 10) == 0) {
      table += fmt::format("{:>6} {:>16.7f} {:>16.7f} {:>12.2e} {:>14.7f}\n", step, alone_loss, loss,
                           std::abs(alone_loss - loss), whole_loss);
    }
  }
  if (world.rank != 0) return {};
  return fmt::format(
      "Lesson 10 on the CPU: {} ({} points) on 2x16x1, full batch, binary cross-entropy, lr {}: {} process(es) × {} "
      "examples, gradients summed by MPI_Allreduce, against one process doing every share in turn\n\n"
      "{:>6} {:>16} {:>16} {:>12} {:>14}\n{}\n"
      "After each of the {} steps every process held the same parameters (checksums all-reduced). Against one "
      "process doing every share in turn: {}. Against lesson 07's step on the whole batch at once: largest parameter "
      "difference {:.2e} (the same sum in another order).\n",
      dataset_name, data.count, kRate, shares, kPerProcess, "step", "loss, 1 process",
      fmt::format("loss, {} proc.", shares), "difference", "whole batch", table, steps,
      identical ? "identical, bit for bit, at every step" : "not bit for bit (MPI summed the shares in another order)",
      largest_whole_gap);
}

}  // namespace gpulab::multi_gpu_runs
