#pragma once
// Lesson 10 under `mpirun`: rank 0 runs the lesson's table as in one process, and its
// process-per-GPU variant sends every other process each thing to do (make your part of the
// step, upload, step, download, drop it, stop); the others do it on their own GPU. So one table
// sets the process-per-GPU step beside the thread-per-GPU one, each process queueing its own
// GPU's work as a cluster's would — plus one small broadcast per step from rank 0.
#include <cstdint>
#include <optional>
#include <string>

namespace gpulab::multi_gpu_runs {

enum class Order : std::int32_t { stop = 0, create, upload, step, download, destroy };

struct Orders {
  Order order = Order::stop;
  std::int32_t sizes[3] = {0, 0, 0};  // the network: in, hidden, out
  std::int32_t batch = 0;             // examples per process
  std::int32_t cublas = 0, graph = 0;
  float lr = 0;
  std::int32_t loss = 0;  // mlp::Loss
};

// Rank 0: every other process receives `orders` (an MPI broadcast).
void send(const Orders& orders);
// The other processes: the next orders.
Orders receive();

// Lesson::other_processes for lesson 10: without mpirun, nullopt. With it, every process first
// compares its arguments with rank 0's and, where the GPU is asked for, rank 0 compares the
// processes on this machine with its GPUs: either mismatch ends every process with a message and
// a non-zero status. Then rank 0 (and every process of a --train run, which trains in step with
// the others) gets nullopt; the others follow rank 0 until it stops (follow_rank0).
std::optional<int> other_processes(int argc, const char* const* argv, bool training, bool gpu);

}  // namespace gpulab::multi_gpu_runs
