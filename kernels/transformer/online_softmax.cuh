#pragma once
// The online softmax of the tensor-core attention rungs (attention_mma.cu, attention_wgmma.cu), on
// scores held in an accumulator's registers: mma.sync's 16 × 8 blocks and wgmma's 64 × N piece
// give each lane the same places — of each block of 8 columns, row g = lane / 4 at columns
// 2 (lane % 4) and the next, and row g + 8 — so one function serves both. Also the packing of
// two weights into the 16-bit pair a fragment of A holds, and 2^x in one instruction.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace gpulab::transformer {

// Two floats rounded to T and packed as one register (the first in the low half), as a fragment holds them.
template <typename T>
__device__ __forceinline__ std::uint32_t pack(float x, float y) {
  std::uint32_t bits;
  if constexpr (std::is_same_v<T, __half>) {
    const __half2 h = __floats2half2_rn(x, y);
    memcpy(&bits, &h, 4);
  } else {
    const __nv_bfloat162 h = __floats2bfloat162_rn(x, y);
    memcpy(&bits, &h, 4);
  }
  return bits;
}

// 2^x in one instruction of the special-function unit (ex2.approx.ftz: a result below 2^-126
// flushes to 0, all a weight that small is worth); exp2f on the emulator, which carries out
// ldmatrix and mma.sync but no other PTX.
__device__ __forceinline__ float fast_exp2(float x) {
#ifndef GPULAB_EMULATED
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#else
  return exp2f(x);
#endif
}

// [snippet:attention_mma_softmax]
// The online softmax on one row block's accumulators. Lane l holds, of each 16 × 8 block j, row
// g = l / 4 at columns 2 (l % 4) and the next (s[j][0], s[j][1]) and row g + 8 (s[j][2], s[j][3]);
// a row's maximum is its lane's 16 values', then the 4 lanes of the row by two shuffles. The
// scores become weights in place, e^((s − m) / √d) computed as 2^((s − m) · log2(e) / √d); the sums
// stay in each lane (a row's 4 lanes are added once, at the end). `correction` is what the output
// so far must be multiplied by: e^(m_old − m), 1 where the maximum did not grow.
template <int Keys>
__device__ __forceinline__ void softmax_tile(float (&s)[Keys / 8][4], float (&m)[2], float (&l)[2],
                                             float (&correction)[2], float scale_log2) {
  float top[2] = {m[0], m[1]};
#pragma unroll
  for (int j = 0; j < Keys / 8; ++j) {
    top[0] = fmaxf(top[0], fmaxf(s[j][0], s[j][1]));
    top[1] = fmaxf(top[1], fmaxf(s[j][2], s[j][3]));
  }
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    top[r] = fmaxf(top[r], __shfl_xor_sync(0xffffffffu, top[r], 1));
    top[r] = fmaxf(top[r], __shfl_xor_sync(0xffffffffu, top[r], 2));
  }
  // top is finite: key 0 is in every query's first tile. m = −inf the first time: a factor of 0.
  correction[0] = fast_exp2((m[0] - top[0]) * scale_log2), correction[1] = fast_exp2((m[1] - top[1]) * scale_log2);
  const float shift[2] = {top[0] * scale_log2, top[1] * scale_log2};
  l[0] *= correction[0], l[1] *= correction[1];
#pragma unroll
  for (int j = 0; j < Keys / 8; ++j) {
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      s[j][e] = fast_exp2(fmaf(s[j][e], scale_log2, -shift[e / 2]));  // a masked −inf gives 0
      l[e / 2] += s[j][e];
    }
  }
  m[0] = top[0], m[1] = top[1];
}

// The output so far brought to the new maximum — unless no row of the warp's grew, as in most
// tiles past the first few (2^0 is exactly 1). At head_dim 64 the test costs more than the 64
// multiplies it saves (1.27 against 1.12 ms at 4 × 16 × 4096 × 64 on an H200): always there.
template <int D>
__device__ __forceinline__ void rescale(float (&out)[D / 8][4], const float (&correction)[2]) {
  if (D < 128 || __any_sync(0xffffffffu, correction[0] != 1.0f || correction[1] != 1.0f)) {
#pragma unroll
    for (int n = 0; n < D / 8; ++n) {
#pragma unroll
      for (int e = 0; e < 4; ++e) out[n][e] *= correction[e / 2];
    }
  }
}

template <int D, int Keys>
__device__ __forceinline__ void online_softmax(float (&s)[Keys / 8][4], float (&m)[2], float (&l)[2],
                                               float (&out)[D / 8][4], float scale_log2) {
  float correction[2];
  softmax_tile<Keys>(s, m, l, correction, scale_log2);
  rescale<D>(out, correction);
}
// [/snippet]

}  // namespace gpulab::transformer
