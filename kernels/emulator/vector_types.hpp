#pragma once
// CUDA's built-in vector types for the emulator: same names, same layout and alignment. They live
// in gpulab::emulated::types and are brought into the global namespace, so an emulated kernel
// writes `float4` as on the GPU without clashing with CUDA's own types in a CUDA build.
namespace gpulab::emulated::types {

struct uint3 {
  unsigned int x, y, z;
};

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return {x, y, z}; }
};

struct alignas(8) float2 {
  float x, y;
};
struct float3 {
  float x, y, z;
};
struct alignas(16) float4 {
  float x, y, z, w;
};
struct alignas(8) int2 {
  int x, y;
};
struct int3 {
  int x, y, z;
};
struct alignas(16) int4 {
  int x, y, z, w;
};
struct alignas(8) uint2 {
  unsigned int x, y;
};
struct alignas(16) uint4 {
  unsigned int x, y, z, w;
};
struct alignas(16) double2 {
  double x, y;
};

inline constexpr float2 make_float2(float x, float y) { return {x, y}; }
inline constexpr float3 make_float3(float x, float y, float z) { return {x, y, z}; }
inline constexpr float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline constexpr int2 make_int2(int x, int y) { return {x, y}; }
inline constexpr int3 make_int3(int x, int y, int z) { return {x, y, z}; }
inline constexpr int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline constexpr uint2 make_uint2(unsigned int x, unsigned int y) { return {x, y}; }
inline constexpr uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) { return {x, y, z}; }
inline constexpr uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) {
  return {x, y, z, w};
}
inline constexpr double2 make_double2(double x, double y) { return {x, y}; }

}  // namespace gpulab::emulated::types

using namespace gpulab::emulated::types;  // NOLINT: kernels name these types unqualified, as in CUDA
