#pragma once
// Lesson 10 on the CPU across processes: `mpirun -np N lesson10_multi_gpu --backend cpu --train
// moons` trains the same network as the GPUs do, each process a share of the batch, gradients
// summed by MPI_Allreduce — the data-parallel algorithm as a cluster runs it, on any machine.
#include <string>

namespace gpulab::multi_gpu_runs {

// Every process trains its share; rank 0's text compares it, step by step, with one process
// doing every share in turn (identical, bit for bit, on two processes) and with the whole batch
// at once. After every step the processes' parameters are compared (a checksum all-reduced).
// Without mpirun: one process, one share.
std::string cpu_train_report(const std::string& dataset_name, int epochs);

}  // namespace gpulab::multi_gpu_runs
