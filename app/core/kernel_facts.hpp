#pragma once
// What the CUDA toolkit says of a lesson kernel, recorded for learners without it beside the
// kernel's source (tools/record-kernel-code.py writes kernels/TOPIC/machine_code/: facts.json,
// KERNEL.sass, KERNEL.ptx), and the theoretical occupancy those facts allow. A kernel is named
// TOPIC::NAME (matmul::naive_kernel): its folder and its function, as two folders may each have a
// kernel of the same name. No OpenGL here: the tests check it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gpulab::app {

struct KernelFacts {
  int registers = 0;               // per thread (the largest of a template's instances)
  std::uint64_t shared_bytes = 0;  // static shared memory per block, as cuobjdump reports it
  std::uint64_t local_bytes = 0;   // local memory per thread: spilled registers and local arrays
  std::uint64_t stack_bytes = 0;
  std::string arch;  // "sm_90"
};

// The root of the machine code's folders: the build's own (made at build time where the CUDA
// toolkit's cuobjdump is: `built`, when it holds them), else the recorded `data_dir`/kernels.
std::string kernel_code_folder(const std::string& data_dir, const std::string& built);
// Every ROOT/TOPIC/machine_code/facts.json, by TOPIC::NAME; empty where there is none.
std::map<std::string, KernelFacts> load_kernel_facts(const std::string& root);
// The kernels a CUDA source defines (`__global__ void NAME`), in order.
std::vector<std::string> kernels_in_source(const std::string& text);
// The kernel folder a source lies in: "matmul" for kernels/matmul/naive.cu; "" outside kernels/.
std::string kernel_topic(const std::string& source_path);
// ROOT/TOPIC/machine_code/NAME.sass or .ptx of TOPIC::NAME, or "" where none was recorded.
std::string recorded_kernel_code(const std::string& root, const std::string& kernel, bool ptx);
// The TOPIC::NAME of `kernels` (a lesson's) whose function is `name` (as a launch names it), else
// `name` itself.
std::string qualified_kernel(const std::vector<std::string>& kernels, const std::string& name);

// The occupancy calculator's arithmetic for an H100 (sm_90): 64 warps, 32 blocks, 65,536
// registers (allocated 256 a warp) and 228 KB of shared memory an SM (1 KB of it reserved per
// block). `limiter`: what stops more blocks fitting ("registers", "shared memory", "threads",
// "blocks per SM").
struct Occupancy {
  int blocks_per_sm = 0;
  double fraction = 0;  // active warps over the 64 an SM holds
  std::string limiter;
};
Occupancy theoretical_occupancy(unsigned threads_per_block, int registers, std::uint64_t shared_bytes_per_block);

}  // namespace gpulab::app
