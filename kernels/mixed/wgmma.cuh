#pragma once
// Hopper's warp-group matrix multiply (wgmma), as lesson 09's last rung uses it (hopper_gemm.cu):
// the four warps of a warp group multiply a 64 × 16 piece of A by a 16 × 256 piece of B, both read
// by the tensor cores straight from shared memory through 64-bit descriptors, and add the product
// into a 64 × 256 FP32 accumulator spread over the group's registers (128 floats a thread). The
// instruction is asynchronous: the group issues several, commits them as a group, and waits.
// Needs sm_90a (the "a": features of this architecture only), hence its own build settings.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace gpulab::mixed {
namespace {

// [snippet:wgmma_descriptor]
// Where a matrix lies in shared memory, for the tensor cores: its start (bytes >> 4), the stride
// between its 8-row groups ("stride byte offset"), the stride between its 64-value column blocks
// where the rows are 64 values wide and the piece is wider ("leading byte offset"), and the
// 128-byte swizzle the TMA unit wrote it with.
__device__ __forceinline__ std::uint64_t smem_descriptor(std::uint32_t address, std::uint32_t leading_bytes,
                                                         std::uint32_t stride_bytes) {
  return std::uint64_t{(address & 0x3FFFF) >> 4} | std::uint64_t{leading_bytes >> 4} << 16 |
         std::uint64_t{stride_bytes >> 4} << 32 | std::uint64_t{1} << 62;
}
// [/snippet]

// Before the group's first wgmma of a k-step: its registers and shared memory are ready.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// Waits until at most `pending` committed groups are still running.
template <int pending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(pending) : "memory");
}
// The accumulator registers of one thread, as PTX operands %0 … (mechanical: PTX names every
// register of the instruction), in pieces of 32: 32, 64 or 128 of them.
#define GPULAB_WGMMA_D_0_31                                                          \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, " \
  "%18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
#define GPULAB_WGMMA_D_32_63                                                         \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define GPULAB_WGMMA_D_64_127                                                        \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, " \
  "%110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, "   \
  "%123, %124, %125, %126, %127"
#define GPULAB_WGMMA_D32 GPULAB_WGMMA_D_0_31
#define GPULAB_WGMMA_D64 GPULAB_WGMMA_D_0_31 ", " GPULAB_WGMMA_D_32_63
#define GPULAB_WGMMA_D GPULAB_WGMMA_D64 ", " GPULAB_WGMMA_D_64_127
#define GPULAB_WGMMA_OUTPUTS_0_31                                                                             \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), \
      "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),  \
      "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), \
      "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
#define GPULAB_WGMMA_OUTPUTS_32_63                                                                                     \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), \
      "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),          \
      "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),          \
      "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define GPULAB_WGMMA_OUTPUTS_64_127                                                                                    \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), \
      "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]),          \
      "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]),          \
      "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]),          \
      "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]),     \
      "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]),  \
      "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]),  \
      "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
#define GPULAB_WGMMA_OUTPUTS32 GPULAB_WGMMA_OUTPUTS_0_31
#define GPULAB_WGMMA_OUTPUTS64 GPULAB_WGMMA_OUTPUTS_0_31, GPULAB_WGMMA_OUTPUTS_32_63
#define GPULAB_WGMMA_OUTPUTS GPULAB_WGMMA_OUTPUTS64, GPULAB_WGMMA_OUTPUTS_64_127

// [snippet:wgmma_instruction]
// D (64 × 256, FP32) += A (64 × 16, from desc_a, K-major: rows of A along k) · B (16 × 256, from
// desc_b, N-major: rows of B along n — the last operand, imm-trans-b = 1, says so).
template <typename T>
__device__ __forceinline__ void wgmma_64x256x16(float (&d)[128], std::uint64_t desc_a, std::uint64_t desc_b) {
  if constexpr (std::is_same_v<T, __half>) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %130, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {" GPULAB_WGMMA_D "}, %128, %129, p, 1, 1, 0, 1;\n}\n"
        : GPULAB_WGMMA_OUTPUTS
        : "l"(desc_a), "l"(desc_b), "r"(1));
  } else {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %130, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {" GPULAB_WGMMA_D "}, %128, %129, p, 1, 1, 0, 1;\n}\n"
        : GPULAB_WGMMA_OUTPUTS
        : "l"(desc_a), "l"(desc_b), "r"(1));
  }
}
// [/snippet]

// The two products of attention's Hopper rung (transformer/attention_wgmma.cu). Each thread holds
// the 64 × N accumulator as wgmma_64x256x16's does: N / 2 floats, columns 8 j + 2 (t % 4) and the
// next of rows 16 (t / 32) + (t % 32) / 4 and 8 more (t: the thread in its warp group).

// S (64 × 128, FP32) = A (64 × 16 from desc_a, K-major) · B (16 × 128 from desc_b, K-major too: the
// B of Q Kᵀ is Kᵀ, and a key's row of K runs along k — imm-trans-b 0). `accumulate` 0: the first
// k-step, which starts the sums instead of adding to them.
template <typename T>
__device__ __forceinline__ void wgmma_64x128x16_k_major(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b,
                                                        int accumulate) {
  if constexpr (std::is_same_v<T, __half>) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %66, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {" GPULAB_WGMMA_D64 "}, %64, %65, p, 1, 1, 0, 0;\n}\n"
        : GPULAB_WGMMA_OUTPUTS64
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
  } else {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %66, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {" GPULAB_WGMMA_D64 "}, %64, %65, p, 1, 1, 0, 0;\n}\n"
        : GPULAB_WGMMA_OUTPUTS64
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
  }
}

// D (64 × N, FP32) += A (64 × 16, from registers: four 16-bit pairs a thread, where mma.sync's A
// fragment has them, per warp a 16-row block) · B (16 × N from desc_b, N-major: V's rows run along
// n — imm-trans-b 1). N is 64 or 128: head_dim.
template <typename T, int N>
__device__ __forceinline__ void wgmma_64xNx16_a_in_registers(float (&d)[N / 2], const std::uint32_t (&a)[4],
                                                             std::uint64_t desc_b) {
  static_assert(N == 64 || N == 128, "head_dim 64 or 128");
  if constexpr (N == 128 && std::is_same_v<T, __half>) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %69, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {" GPULAB_WGMMA_D64
        "}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
        : GPULAB_WGMMA_OUTPUTS64
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1));
  } else if constexpr (N == 128) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %69, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {" GPULAB_WGMMA_D64
        "}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
        : GPULAB_WGMMA_OUTPUTS64
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1));
  } else if constexpr (std::is_same_v<T, __half>) {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %37, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {" GPULAB_WGMMA_D32
        "}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
        : GPULAB_WGMMA_OUTPUTS32
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1));
  } else {
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.b32 p, %37, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {" GPULAB_WGMMA_D32
        "}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
        : GPULAB_WGMMA_OUTPUTS32
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1));
  }
}

#undef GPULAB_WGMMA_D_0_31
#undef GPULAB_WGMMA_D_32_63
#undef GPULAB_WGMMA_D_64_127
#undef GPULAB_WGMMA_D32
#undef GPULAB_WGMMA_D64
#undef GPULAB_WGMMA_D
#undef GPULAB_WGMMA_OUTPUTS_0_31
#undef GPULAB_WGMMA_OUTPUTS_32_63
#undef GPULAB_WGMMA_OUTPUTS_64_127
#undef GPULAB_WGMMA_OUTPUTS32
#undef GPULAB_WGMMA_OUTPUTS64
#undef GPULAB_WGMMA_OUTPUTS

}  // namespace
}  // namespace gpulab::mixed
