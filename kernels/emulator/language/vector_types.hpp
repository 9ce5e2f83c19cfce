#pragma once
// CUDA's built-in vector types for the emulator: same names, members, layout and alignment
// (char1 ... double4, dim3, make_float4, ...). They live in gpulab::emulated::types and are
// brought into the global namespace, so an emulated kernel writes `float4` as on the GPU without
// clashing with CUDA's own types in a program that also holds the GPU build.
#include <cstddef>

namespace gpulab::emulated::types {

// GPULAB_VECTOR_TYPES(T, name, align2, align4): name1, name2, name3, name4 and make_name1 ... 4,
// with CUDA's alignment for the 2- and 4-element types (3-element ones are unaligned, as in CUDA).
#define GPULAB_VECTOR_TYPES(T, name, align2, align4)                           \
  struct name##1 {                                                             \
    T x;                                                                       \
  };                                                                           \
  struct alignas(align2) name##2 {                                             \
    T x, y;                                                                    \
  };                                                                           \
  struct name##3 {                                                             \
    T x, y, z;                                                                 \
  };                                                                           \
  struct alignas(align4) name##4 {                                             \
    T x, y, z, w;                                                              \
  };                                                                           \
  inline constexpr name##1 make_##name##1(T x) { return {x}; }                 \
  inline constexpr name##2 make_##name##2(T x, T y) { return {x, y}; }         \
  inline constexpr name##3 make_##name##3(T x, T y, T z) { return {x, y, z}; } \
  inline constexpr name##4 make_##name##4(T x, T y, T z, T w) { return {x, y, z, w}; }

GPULAB_VECTOR_TYPES(signed char, char, 2, 4)
GPULAB_VECTOR_TYPES(unsigned char, uchar, 2, 4)
GPULAB_VECTOR_TYPES(short, short, 4, 8)
GPULAB_VECTOR_TYPES(unsigned short, ushort, 4, 8)
GPULAB_VECTOR_TYPES(int, int, 8, 16)
GPULAB_VECTOR_TYPES(long, long, 16, 16)
GPULAB_VECTOR_TYPES(unsigned long, ulong, 16, 16)
GPULAB_VECTOR_TYPES(long long, longlong, 16, 16)
GPULAB_VECTOR_TYPES(unsigned long long, ulonglong, 16, 16)
GPULAB_VECTOR_TYPES(float, float, 8, 16)
GPULAB_VECTOR_TYPES(double, double, 16, 16)
#undef GPULAB_VECTOR_TYPES

// uint is written out: dim3 converts to and from uint3.
struct uint1 {
  unsigned int x;
};
struct alignas(8) uint2 {
  unsigned int x, y;
};
struct uint3 {
  unsigned int x, y, z;
};
struct alignas(16) uint4 {
  unsigned int x, y, z, w;
};
inline constexpr uint1 make_uint1(unsigned int x) { return {x}; }
inline constexpr uint2 make_uint2(unsigned int x, unsigned int y) { return {x, y}; }
inline constexpr uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { return {x, y, z}; }
inline constexpr uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) {
  return {x, y, z, w};
}

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return {x, y, z}; }
};

}  // namespace gpulab::emulated::types

using namespace gpulab::emulated::types;  // NOLINT: kernels name these types unqualified, as in CUDA
