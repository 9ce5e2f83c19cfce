// Host code in a .cpp of its own, compiled as the host compiler would under nvcc.
double host_sum(const float* v, int n) {
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += v[i];
  return sum;
}
