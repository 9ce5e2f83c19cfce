#pragma once
// A row of floats as the registers rungs of softmax and layer norm read it: float4s from its first
// 16-byte boundary on, and single floats around them. A row starts on 16 bytes only when the
// row length is a multiple of 4 (and the array does); otherwise its first 1 to 3 floats, before
// that boundary, and its last 0 to 3, after the last whole float4, are single: threads 0 to 3 hold
// the first ones and threads 4 to 7 the last ones, one each.
#include <cstddef>
#include <cstdint>

namespace gpulab::transformer {

// [snippet:row_split]
// (32-bit counts: the rows these rungs hold in registers are at most 1024 · 8 float4s long.)
struct RowSplit {
  unsigned head = 0;   // single floats before the first float4
  unsigned quads = 0;  // whole float4s
  unsigned tail = 0;   // single floats after them
};

__device__ inline RowSplit split_row(const float* row, unsigned cols) {
  const auto past_boundary = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(row) / sizeof(float) % 4);
  const unsigned head = min(cols, (4 - past_boundary) % 4);
  const unsigned quads = (cols - head) / 4;
  return {head, quads, cols - head - 4 * quads};
}

// The column of the single float thread t holds, or -1 where it holds none.
__device__ inline int single_column(const RowSplit& s, unsigned t) {
  if (t < s.head) return static_cast<int>(t);
  if (t >= 4 && t - 4 < s.tail) return static_cast<int>(s.head + 4 * s.quads + (t - 4));
  return -1;
}
// [/snippet]

// Block blockIdx.x's row of x and of y (cols floats each, alike past 16-byte boundaries) as the
// registers rungs hold it: its split, its float4s, and the column of this thread's single float.
struct HeldRow {
  const float* in;  // the row of x
  float* out;       // the row of y
  RowSplit split;
  const float4* in4;  // its float4s
  float4* out4;
  int column;  // this thread's single float, or -1
};

__device__ inline HeldRow held_row(const float* x, float* y, std::size_t cols) {
  HeldRow r;
  r.in = x + std::size_t{blockIdx.x} * cols;
  r.out = y + std::size_t{blockIdx.x} * cols;
  r.split = split_row(r.in, static_cast<unsigned>(cols));
  r.in4 = reinterpret_cast<const float4*>(r.in + r.split.head);
  r.out4 = reinterpret_cast<float4*>(r.out + r.split.head);
  r.column = single_column(r.split, threadIdx.x);
  return r;
}

}  // namespace gpulab::transformer
