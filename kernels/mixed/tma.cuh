#pragma once
// Hopper's tensor memory accelerator (TMA) and the shared-memory barriers that say when its copies
// have landed, as lesson 09's Hopper rungs use them (hopper_gemm.cu). CUDA C++ has no names for
// most of these yet; each wrapper is one PTX instruction.
//
// A TMA copy moves a whole box of a matrix (here 64 values × up to 128 rows) from global to shared
// memory: one thread issues it with the box's coordinates, the unit computes every address, fills
// what lies outside the matrix with zeros, swizzles the rows as the tensor map says, and reports
// the bytes it wrote to an mbarrier. A thread that waits on the barrier wakes when the bytes it
// was told to expect have all arrived.
#include <cuda.h>  // CUtensorMap

#include <cstdint>

#include "mixed/mma_fragments.cuh"

// The wgmma and TMA instructions exist in sm_90a code only; other builds of a file that uses them
// get empty kernels, which the launchers never start (hopper_missing says why).
#if !defined(__CUDA_ARCH__) || defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GPULAB_HOPPER_BODY 1
#else
#define GPULAB_HOPPER_BODY 0
#endif

namespace gpulab::mixed {
namespace {

// The dynamic shared memory's start rounded up to 1024 bytes, where the 128-byte swizzle's
// pattern repeats (a launch asks for 1 KB more than its tiles need).
__device__ __forceinline__ unsigned char* aligned_1024(unsigned char* p) {
  const std::uint32_t offset = shared_address(p) % 1024;
  return offset == 0 ? p : p + (1024 - offset);
}

// [snippet:mbarrier]
// An mbarrier (a 64-bit word in shared memory) completes a phase when `count` threads have
// arrived and every byte announced with expect_bytes has landed; waiters name the phase's parity.
__device__ __forceinline__ void mbarrier_init(std::uint64_t* barrier, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(barrier)), "r"(count));
}
// Makes the initialised barriers visible to the TMA unit (another "proxy" of the memory).
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
// One arrival that also announces `bytes` more to come from TMA copies.
__device__ __forceinline__ void mbarrier_expect_bytes(std::uint64_t* barrier, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(barrier)), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(shared_address(barrier)) : "memory");
}
// Waits until the barrier's phase with this parity has completed.
__device__ __forceinline__ void mbarrier_wait(std::uint64_t* barrier, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(shared_address(barrier)), "r"(parity)
        : "memory");
  } while (done == 0);
}
// [/snippet]

// [snippet:tma_load]
// The box of `map` whose first element is at column x, row y, into shared memory at `to` (1024-byte
// aligned for the 128-byte swizzle), its bytes reported to `barrier`. `map` must be a kernel
// parameter marked __grid_constant__: the TMA unit reads the descriptor where it lies.
__device__ __forceinline__ void tma_load(void* to, const CUtensorMap& map, int x, int y, std::uint64_t* barrier) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n" ::"r"(
          shared_address(to)),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(x), "r"(y), "r"(shared_address(barrier))
      : "memory");
}
// [/snippet]

// [snippet:tma_store]
// The other direction: a box of shared memory (1024-byte aligned, swizzled as the map says) into
// the array at column x, row y, by the TMA unit; what falls outside the array is not written.
// Before it, each thread that wrote the box makes its writes visible to the TMA unit (another
// proxy) and the writers meet. Stores go in groups: commit closes one, and wait_reads<N> waits
// until at most N groups still read their shared memory (which may then be written again) —
// their writes to global memory go on without the block waiting.
__device__ __forceinline__ void fence_for_tma() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }
__device__ __forceinline__ void tma_store(const CUtensorMap& map, int x, int y, const void* from) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(
                   reinterpret_cast<std::uint64_t>(&map)),
               "r"(x), "r"(y), "r"(shared_address(from))
               : "memory");
}
__device__ __forceinline__ void tma_store_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void tma_store_wait_reads() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}
template <int N>
__device__ __forceinline__ void tma_store_wait() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}
// [/snippet]

// The threads of one warp group meet (named barrier `id`, 1–15; 0 is __syncthreads's).
__device__ __forceinline__ void warp_group_sync(int id) { asm volatile("bar.sync %0, 128;\n" ::"r"(id) : "memory"); }

// [snippet:cluster]
// Thread-block clusters: blocks launched together on neighbouring multiprocessors, each able to
// reach the others' shared memory. A TMA copy can then land in several blocks at once
// (multicast): one read of L2, one write into each block named in `blocks` (a bit per block's
// rank in the cluster), at the same offset and reported to the barrier at the same offset in
// each. And a thread can arrive on another block's barrier: mapa turns a shared address of this
// block into the same place in block `rank`.
__device__ __forceinline__ void tma_load_multicast(void* to, const CUtensorMap& map, int x, int y,
                                                   std::uint64_t* barrier, std::uint16_t blocks) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(shared_address(to)),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(x), "r"(y), "r"(shared_address(barrier)), "h"(blocks)
      : "memory");
}
__device__ __forceinline__ void mbarrier_arrive_in_block(std::uint64_t* barrier, unsigned rank) {
  asm volatile(
      "{\n .reg .b32 remote;\n mapa.shared::cluster.u32 remote, %0, %1;\n"
      " mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(shared_address(barrier)),
      "r"(rank)
      : "memory");
}
// This block's rank in its cluster.
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned rank = 0;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
}
// Every thread of every block of the cluster has arrived (and what each wrote before is seen).
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}
// [/snippet]

// The box of a 3-D map whose first element is at (x, y, z): attention's [batch · heads][seq][d]
// tensors, so that a box running past a head's last row arrives as zeros instead of the next
// head's first rows.
__device__ __forceinline__ void tma_load_3d(void* to, const CUtensorMap& map, int x, int y, int z,
                                            std::uint64_t* barrier) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n" ::
          "r"(shared_address(to)),
      "l"(reinterpret_cast<std::uint64_t>(&map)), "r"(x), "r"(y), "r"(z), "r"(shared_address(barrier))
      : "memory");
}

}  // namespace
}  // namespace gpulab::mixed
