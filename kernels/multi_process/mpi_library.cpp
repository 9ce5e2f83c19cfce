#include "multi_process/mpi_library.hpp"

#include <dlfcn.h>

#include <mutex>

namespace gpulab::multi_process {

namespace {

template <typename Function>
void bind(void* library, const char* name, Function& f) {
  f = reinterpret_cast<Function>(dlsym(library, name));
  if (f == nullptr) throw MpiUnavailable(std::string("libmpi.so.40 has no ") + name + ": not Open MPI 4 or 5");
}

void find(void* library, const char* name, Handle& h) {
  h = dlsym(library, name);
  if (h == nullptr) throw MpiUnavailable(std::string("libmpi.so.40 has no ") + name + ": not Open MPI 4 or 5");
}

}  // namespace

const Mpi& mpi() {
  static std::once_flag once;
  static Mpi loaded{};
  static std::string failure;
  std::call_once(once, [] {
    // RTLD_GLOBAL: Open MPI's own plugins, which it loads in turn, look for its symbols there.
    void* library = dlopen("libmpi.so.40", RTLD_NOW | RTLD_GLOBAL);
    if (library == nullptr) {
      const char* why = dlerror();
      failure = std::string("Open MPI is not installed here (") + (why != nullptr ? why : "dlopen failed") +
                "): install Debian's openmpi-bin (tools/debian-packages.txt)";
      return;
    }
    try {
      bind(library, "MPI_Init", loaded.init);
      bind(library, "MPI_Finalize", loaded.finalize);
      bind(library, "MPI_Initialized", loaded.initialized);
      bind(library, "MPI_Comm_rank", loaded.comm_rank);
      bind(library, "MPI_Comm_size", loaded.comm_size);
      bind(library, "MPI_Bcast", loaded.bcast);
      bind(library, "MPI_Allreduce", loaded.allreduce);
      bind(library, "MPI_Barrier", loaded.barrier);
      bind(library, "MPI_Abort", loaded.abort);
      find(library, "ompi_mpi_comm_world", loaded.world);
      find(library, "ompi_mpi_byte", loaded.byte_type);
      find(library, "ompi_mpi_float", loaded.float_type);
      find(library, "ompi_mpi_uint64_t", loaded.uint64_type);
      find(library, "ompi_mpi_op_sum", loaded.sum);
      find(library, "ompi_mpi_op_max", loaded.max);
    } catch (const MpiUnavailable& e) {
      failure = e.what();
    }
  });
  if (!failure.empty()) throw MpiUnavailable(failure);
  return loaded;
}

void mpi_check(int result, const char* call) {
  if (result == 0) return;  // MPI_SUCCESS
  throw std::runtime_error(std::string(call) + " failed with MPI error " + std::to_string(result));
}

}  // namespace gpulab::multi_process
