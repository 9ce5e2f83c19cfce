#pragma once
// Attention's online softmax step by step (lesson 19's Visualize view and `--steps`), read from
// the emulator's recording of the fused kernel's first block (common/shared_steps.hpp). The block
// runs a query a warp; for each query, tile by tile of 32 keys, the recording holds:
//   - the scores s, one a lane: the values the lanes handed each other for the tile's maximum
//     (the tile's first warp operation);
//   - the weights p = e^(s − m): the values they handed each other for the broadcast that weighs
//     the values (its last);
//   - the tile of V in shared memory, as it was when the tile's barrier fell.
// From these, line for line as the kernel carries them, the running maximum m, the factor
// e^(m_old − m) that rescales the old sum and output, the running sum l and the output so far.
// Beside each step: how far out / l is from the softmax of all the row's scores at once (float64),
// which the last tile brings to rounding.
#include <cstddef>
#include <string>
#include <vector>

#include "common/shared_steps.hpp"

namespace gpulab {

struct OnlineSoftmaxTile {
  std::size_t first_key = 0, last_key = 0;  // the tile's keys that exist (the last tile may be short)
  std::vector<float> scores;                // 32, as the lanes computed them; −inf where masked or past seq
  std::vector<float> weights;               // 32, p = e^(s − m) as the lanes computed them
  float tile_max = 0, running_max = 0, correction = 0, tile_sum = 0, running_sum = 0;
  std::vector<float> output;  // head_dim: the unnormalised output after this tile
  double distance = 0;        // the largest |output / running_sum − exact| over the row
};

struct OnlineSoftmaxQuery {
  std::size_t query = 0;  // its row in the head
  std::vector<OnlineSoftmaxTile> tiles;
  std::vector<double> exact;  // softmax of every recorded score at once, times V, in float64
  std::size_t keys_seen = 0;  // scores not masked
  double weights_agree = 0;   // the largest |recorded p − e^(s − m)| (the reading's own check)
};

struct OnlineSoftmaxSteps {
  std::string kernel;
  std::size_t head_dim = 0;
  std::vector<OnlineSoftmaxQuery> queries;  // those of the recorded block that exist
};

// Reads a recording of lesson 19's `fused` variant; throws std::runtime_error when the recording is
// not of a kernel shaped like it (no `values` array, no warp operations in a tile).
OnlineSoftmaxSteps online_softmax_steps(const StepRecording& recording);

// One query's steps as a table: a line a tile.
std::string format_online_softmax_steps(const OnlineSoftmaxSteps& steps, std::size_t query = 0);

}  // namespace gpulab
