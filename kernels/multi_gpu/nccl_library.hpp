#pragma once
// NCCL, loaded when first needed (dlopen of libnccl.so.2) rather than linked: every lesson
// executable links every lesson, and only lesson 10's multi-GPU variants need NCCL, so a machine
// without it still runs everything else, and lesson 10 says what is missing.
#include <nccl.h>

#include <stdexcept>
#include <string>

namespace gpulab::gpu::multi_gpu {

class NcclUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Nccl {
  decltype(&ncclCommInitAll) comm_init_all;
  decltype(&ncclGetUniqueId) get_unique_id;  // a process per GPU: rank 0 makes the id, MPI sends it
  decltype(&ncclCommInitRank) comm_init_rank;
  decltype(&ncclCommDestroy) comm_destroy;
  decltype(&ncclAllReduce) all_reduce;
  decltype(&ncclGroupStart) group_start;
  decltype(&ncclGroupEnd) group_end;
  decltype(&ncclGetErrorString) error_string;
  int version = 0;  // 22703 for 2.27.3
};

// The loaded library; throws NcclUnavailable with dlopen's reason when it cannot be loaded.
const Nccl& nccl();

// Throws CudaError naming the call, file and line, and NCCL's message.
void nccl_check(ncclResult_t result, const char* call, const char* file, int line);

}  // namespace gpulab::gpu::multi_gpu

#define GPULAB_NCCL_CHECK(call) ::gpulab::gpu::multi_gpu::nccl_check((call), #call, __FILE__, __LINE__)
