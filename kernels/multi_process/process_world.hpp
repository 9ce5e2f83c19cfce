#pragma once
// A process among several started by `mpirun` (Open MPI), as training leaves one machine: every
// GPU its own process. Without mpirun the world is this one process (rank 0 of 1) and nothing
// here touches MPI.
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <thread>

namespace gpulab::multi_process {

struct World {
  int rank = 0, size = 1;              // among every process of the job
  int local_rank = 0, local_size = 1;  // among this machine's (mpirun's environment says)
};

// Whether Open MPI's launcher started this process (it sets OMPI_COMM_WORLD_SIZE).
bool started_by_mpirun();

// This process's place. Started by mpirun, the first call initialises MPI (finalised at exit,
// after any exit handler registered later, such as rank 0 telling the others to stop).
const World& world();

// Collectives over every process (with one process they return at once).
void broadcast(std::span<std::byte> data, int root = 0);
template <typename T>
void broadcast_values(std::span<T> values, int root = 0) {
  broadcast(std::as_writable_bytes(values), root);
}
void sum_everywhere(std::span<float> values);  // MPI_Allreduce, MPI_SUM, in place
void wait_for_every_process();                 // MPI_Barrier
// True on every process when every process passed the same value (an all-reduce of the value's
// maximum and of its complement's maximum: equal exactly when the minimum is the maximum).
bool same_everywhere(std::uint64_t value);
// A 64-bit checksum of bytes (FNV-1a): what same_everywhere compares of a model's parameters.
std::uint64_t checksum(std::span<const std::byte> bytes);

// Ends the whole job with `message` (every process's copy printed by the one that calls it), as
// Open MPI's MPI_Abort does: for a process that finds the others gone or mismatched.
[[noreturn]] void abort_job(const std::string& message, int code = 3);

// A deadline for a step that needs every process (NCCL's set-up, a collective): if it has not
// ended `seconds` after the guard was made, this process says what it was waiting for and ends
// the job, instead of waiting for ever on a process that died or never came.
class Deadline {
 public:
  Deadline(std::string what, int seconds);
  ~Deadline();
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable ended_;
  bool done_ = false;
  std::thread watcher_;
};

}  // namespace gpulab::multi_process
