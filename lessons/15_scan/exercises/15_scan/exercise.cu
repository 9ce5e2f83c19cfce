// Exercise 15 — scan: y[i] = x[0] + x[1] + ... + x[i] (an inclusive scan) for any n, in unsigned
// ints (the sums wrap at 2^32, as unsigned arithmetic does).
// Scan-then-propagate: each block scans its part and writes its total; the totals are scanned;
// each block adds the total of the blocks before it.
//   gpulab_grade --exercise 15_scan

__global__ void scan_blocks(const unsigned int* x, unsigned int* y, unsigned int* block_sums, int n) {
  // TODO 1: a block's elements in shared memory (0 past n); Hillis–Steele: for offset = 1, 2, 4, …
  // each element adds the one offset before it (read the old values before anyone writes: two
  // buffers, or a barrier between the read and the write); write y and the block's total.
}

__global__ void add_offsets(unsigned int* y, const unsigned int* block_sums, int n) {
  // TODO 2: block b > 0 adds the sum of blocks 0 … b − 1 to each of its elements.
}

void inclusive_scan(const unsigned int* x, unsigned int* y, int n) {
  // TODO 3: nothing for n = 0; scan_blocks over every element; the block sums scanned (few enough
  // for one thread, or scan_blocks again); add_offsets.
}
