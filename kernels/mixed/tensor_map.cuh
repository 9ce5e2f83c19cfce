#pragma once
// Tensor maps: what the TMA unit knows of an array in global memory — its sizes, its strides, the
// box one copy moves and the swizzle it writes into shared memory. Host code of the Hopper rungs
// (lesson 09's GEMMs, lesson 19's attention); GPU builds only.
#include <cuda.h>  // CUtensorMap
#include <cudaTypedefs.h>

#include <stdexcept>
#include <string>

#include "common/cuda_check.hpp"
#include "mixed/mixed.hpp"

namespace gpulab::mixed {

// [snippet:tensor_map]
// The tensor map of an array of `type` with `rank` dimensions (sizes fastest first; the bytes
// between consecutive rows, then between consecutive planes), moved in boxes whose rows are 128
// bytes (64 16-bit values, 32 floats), swizzled by 128 bytes in shared memory; what lies outside
// the array arrives as zeros, and a store leaves it unwritten. cuTensorMapEncodeTiled belongs to
// the driver API: the runtime hands out its address, so the program needs no -lcuda.
inline CUtensorMap tensor_map(CUtensorMapDataType type, const void* data, cuuint32_t rank, const cuuint64_t* sizes,
                              const cuuint64_t* strides, const cuuint32_t* box) {
  static const auto encode = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
    GPULAB_CUDA_CHECK(
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || function == nullptr) {
      throw std::runtime_error("the driver does not offer cuTensorMapEncodeTiled (TMA needs CUDA 12 or newer)");
    }
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function);
  }();
  CUtensorMap map{};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult result = encode(&map, type, rank, const_cast<void*>(data), sizes, strides, box, element_strides,
                                 CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                 CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    std::string shape;
    for (cuuint32_t d = rank; d-- > 0;) shape += std::to_string(sizes[d]) + (d > 0 ? " × " : "");
    throw std::runtime_error("cuTensorMapEncodeTiled refused a " + shape + " array (error " +
                             std::to_string(static_cast<int>(result)) + ")");
  }
  return map;
}
// [/snippet]

// The same for 16-bit values, FP16 or BF16 as `s` says.
inline CUtensorMap tensor_map(Storage s, const void* data, cuuint32_t rank, const cuuint64_t* sizes,
                              const cuuint64_t* strides, const cuuint32_t* box) {
  return tensor_map(s == Storage::fp16 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, data, rank,
                    sizes, strides, box);
}

// A row-major rows × cols matrix, in boxes of box_rows × 64 values.
inline CUtensorMap matrix_map(Storage s, const std::uint16_t* data, int rows, int cols, int box_rows) {
  const cuuint64_t sizes[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t row_bytes[1] = {static_cast<cuuint64_t>(cols) * 2};
  const cuuint32_t box[2] = {64, static_cast<cuuint32_t>(box_rows)};
  return tensor_map(s, data, 2, sizes, row_bytes, box);
}

// A row-major rows × cols matrix of floats (C, written by TMA stores), in boxes of box_rows × 32
// floats: 128-byte rows, as the swizzle wants them.
inline CUtensorMap float_matrix_map(const float* data, int rows, int cols, int box_rows) {
  const cuuint64_t sizes[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t row_bytes[1] = {static_cast<cuuint64_t>(cols) * 4};
  const cuuint32_t box[2] = {32, static_cast<cuuint32_t>(box_rows)};
  return tensor_map(CU_TENSOR_MAP_DATA_TYPE_FLOAT32, data, 2, sizes, row_bytes, box);
}

}  // namespace gpulab::mixed
