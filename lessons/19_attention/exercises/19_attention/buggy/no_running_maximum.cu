// No running maximum: e^s straight from the scores. Right for small scores, and e^s overflows to
// infinity (then inf / inf = NaN) once scores pass 88, as they do with large queries.
// expect: (large inputs): o:
// expect: is NaN
constexpr int kKeys = 32;     // keys a tile: a lane each when they are scored
constexpr int kQueries = 4;   // queries a block, a warp each
constexpr int kMaxDim = 128;  // d at most

__device__ float warp_max(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void attention_kernel(const float* q, const float* k, const float* v, float* o, int seq, int d, int causal) {
  __shared__ float keys[kKeys][kMaxDim + 1];  // + 1: 32 lanes reading 32 rows at one column, 32 banks
  __shared__ float values[kKeys][kMaxDim];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int first = blockIdx.x * kQueries, i = first + warp;
  const float scale = 1.0f / sqrtf(static_cast<float>(d));
  float out[kMaxDim / 32] = {};
  float m = -INFINITY, l = 0.0f;
  const int keys_seen = causal ? min(seq, first + kQueries) : seq;
  for (int t0 = 0; t0 < keys_seen; t0 += kKeys) {
    __syncthreads();  // every warp is done with the last tile
    for (int e = threadIdx.x; e < kKeys * d; e += blockDim.x) {
      const int r = e / d, c = e % d;
      keys[r][c] = t0 + r < seq ? k[(t0 + r) * d + c] : 0.0f;
      values[r][c] = t0 + r < seq ? v[(t0 + r) * d + c] : 0.0f;
    }
    __syncthreads();
    const int j = t0 + lane;
    float s = -INFINITY;
    if (i < seq && j < seq && !(causal && j > i)) {
      s = 0.0f;
      for (int c = 0; c < d; ++c) s += q[i * d + c] * keys[lane][c];
      s *= scale;
    }
    const float m_new = 0.0f;
    if (m_new == -INFINITY) continue;  // a query past seq: nothing to add
    const float p = expf(s - m_new), correction = expf(m - m_new);
    l = l * correction + warp_sum(p);
    for (int x = 0; x < kMaxDim / 32; ++x) out[x] *= correction;
    for (int r = 0; r < kKeys; ++r) {
      const float weight = __shfl_sync(0xffffffffu, p, r);
      for (int x = 0; x < kMaxDim / 32; ++x) {
        if (lane + 32 * x < d) out[x] += weight * values[r][lane + 32 * x];
      }
    }
    m = m_new;
  }
  if (i >= seq) return;
  for (int x = 0; x < kMaxDim / 32; ++x) {
    if (lane + 32 * x < d) o[i * d + lane + 32 * x] = out[x] / l;
  }
}

void attention(const float* q, const float* k, const float* v, float* o, int seq, int d, int causal) {
  if (seq == 0) return;
  attention_kernel<<<(seq + kQueries - 1) / kQueries, 32 * kQueries>>>(q, k, v, o, seq, d, causal);
}
