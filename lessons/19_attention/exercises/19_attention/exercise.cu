// Exercise 19 — attention for one head, in one pass: o = softmax(q kᵀ / √d) v, with q, k, v and o
// seq × d row-major (d at most 128) and, when causal is 1, query i seeing keys 0 to i only.
// Do not write the seq × seq scores anywhere: take the keys and values a tile at a time through
// shared memory and carry each query's online softmax from tile to tile (lesson 19's fused rung,
// and lesson 17's online_add) — a running maximum, a running sum, the output so far.
//   gpulab_grade --exercise 19_attention

__global__ void attention_kernel(const float* q, const float* k, const float* v, float* o, int seq, int d, int causal) {
  // TODO 1: this thread's query (a warp a query, say); a loop over tiles of keys: stage them and
  // their values in shared memory, score them, update the running maximum, sum and output.
  // TODO 2: write o = output / sum for every column of the query.
}

void attention(const float* q, const float* k, const float* v, float* o, int seq, int d, int causal) {
  // TODO 3: enough blocks for every query (and nothing at all when seq is 0).
}
