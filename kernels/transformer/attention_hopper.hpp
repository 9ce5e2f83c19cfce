#pragma once
// Attention's Hopper rung (GPU builds only; sm_90a code): FlashAttention-3's shape with lesson
// 09's TMA and wgmma (attention_wgmma.cu). Same inputs, output and rules as attention.hpp's rungs.
#include <span>

#include "transformer/attention.hpp"

namespace gpulab::transformer {

// 128 queries a block: a producer warp group loading Q once and tiles of 128 keys and values by
// TMA into two stages; two consumer warp groups of 64 queries each computing S = Q Kᵀ and O += P V
// with wgmma (P from registers), the online softmax in between. head_dim 64 or 128; a Hopper GPU.
void attention_wgmma(const AttentionInputs& in, std::span<float> o, const AttentionShape& shape);

}  // namespace gpulab::transformer
