// The arrays are in host memory already, so the host adds them itself: no copy, no kernel.
// expect: the host did the work
// expect: written by host code
void pipelined_add(const float* a, const float* b, float* c, int n, int chunks) {
  (void)chunks;
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
