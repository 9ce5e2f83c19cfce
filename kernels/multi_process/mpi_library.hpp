#pragma once
// Open MPI, loaded when first needed (dlopen of libmpi.so.40) rather than linked: every lesson
// executable links every lesson, and only lesson 10 started by `mpirun` needs MPI, so a machine
// without Open MPI still runs everything else.
//
// No <mpi.h> either: Open MPI's handles (MPI_Comm, MPI_Datatype, MPI_Op) are pointers to objects
// the library exports by name (MPI_COMM_WORLD is &ompi_mpi_comm_world), so the few calls lesson
// 10 makes are declared here with opaque pointers and the handles looked up with dlsym.
#include <stdexcept>
#include <string>

namespace gpulab::multi_process {

class MpiUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using Handle = void*;  // an MPI_Comm, MPI_Datatype or MPI_Op of Open MPI

struct Mpi {
  int (*init)(int* argc, char*** argv);
  int (*finalize)();
  int (*initialized)(int* flag);
  int (*comm_rank)(Handle comm, int* rank);
  int (*comm_size)(Handle comm, int* size);
  int (*bcast)(void* buffer, int count, Handle type, int root, Handle comm);
  int (*allreduce)(const void* send, void* receive, int count, Handle type, Handle op, Handle comm);
  int (*barrier)(Handle comm);
  int (*abort)(Handle comm, int code);
  Handle world, byte_type, float_type, uint64_type, sum, max;
};

// The loaded library; throws MpiUnavailable with dlopen's reason when it cannot be loaded.
const Mpi& mpi();

// Throws std::runtime_error naming the call when an MPI call fails (Open MPI's default handler
// aborts every process first, with its own message).
void mpi_check(int result, const char* call);

}  // namespace gpulab::multi_process

#define GPULAB_MPI_CHECK(call) ::gpulab::multi_process::mpi_check((call), #call)
