#include "multi_gpu/nccl_library.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "common/cuda_error.hpp"

namespace gpulab::gpu::multi_gpu {

namespace {

template <typename Function>
void bind(void* library, const char* name, Function& f) {
  f = reinterpret_cast<Function>(dlsym(library, name));
  if (f == nullptr) throw NcclUnavailable(std::string("libnccl.so.2 has no ") + name + ": too old an NCCL");
}

}  // namespace

const Nccl& nccl() {
  static std::once_flag once;
  static Nccl loaded{};
  static std::string failure;
  std::call_once(once, [] {
    // NVLink multicast (NVLS) is not needed at these sizes, and on shared machines it can take the
    // GPUs out of service for a day or more: always off, whatever the environment says.
    setenv("NCCL_NVLS_ENABLE", "0", 1);
    // The loader's search path first, then the CUDA toolkit's own lib64 (where it ships NCCL).
    void* library = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) library = dlopen(GPULAB_CUDA_LIBRARY_DIR "/libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
      const char* why = dlerror();
      failure = std::string("NCCL is not installed here (") + (why != nullptr ? why : "dlopen failed") +
                "): install libnccl2 or put libnccl.so.2 on LD_LIBRARY_PATH";
      return;
    }
    try {
      bind(library, "ncclCommInitAll", loaded.comm_init_all);
      bind(library, "ncclGetUniqueId", loaded.get_unique_id);
      bind(library, "ncclCommInitRank", loaded.comm_init_rank);
      bind(library, "ncclCommDestroy", loaded.comm_destroy);
      bind(library, "ncclAllReduce", loaded.all_reduce);
      bind(library, "ncclGroupStart", loaded.group_start);
      bind(library, "ncclGroupEnd", loaded.group_end);
      bind(library, "ncclGetErrorString", loaded.error_string);
      decltype(&ncclGetVersion) get_version = nullptr;
      bind(library, "ncclGetVersion", get_version);
      get_version(&loaded.version);
    } catch (const NcclUnavailable& e) {
      failure = e.what();
    }
  });
  if (!failure.empty()) throw NcclUnavailable(failure);
  return loaded;
}

void nccl_check(ncclResult_t result, const char* call, const char* file, int line) {
  if (result == ncclSuccess) return;
  throw_library_error(static_cast<int>(result), nccl().error_string(result), call, file, line);
}

}  // namespace gpulab::gpu::multi_gpu
