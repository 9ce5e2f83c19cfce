// The host adds through the device pointers themselves. On a GPU that is a segmentation fault;
// on the emulator, whose device memory is host memory, it would give the right numbers — unless
// the grader closes device memory to host code while the function runs, as it does.
// expect: Host code touched device memory
// expect: Invalid host read of element 0 of 'a'
// expect: segmentation fault
void vector_add(const float* a, const float* b, float* c, int n) {
  for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
