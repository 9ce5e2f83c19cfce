#pragma once
// Inline PTX on the emulator: the tensor cores' instructions a kernel writes by hand.
//
// The source rewrite (rewrite.hpp) turns a kernel's
//   asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, ...};" : "+f"(c[0]), ... : "r"(a[0]), ...);
// into a call of ptx::run with the template and its operands in GCC's order (outputs, then
// inputs; %N names the Nth), and run() carries the instructions out for the calling lane:
//   ldmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans].shared[::cta].b16   the warp's eight-row loads
//       from shared memory (each lane names one row; each receives its fragment's pairs), every
//       read seen by the checked mode
//   mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32   the warp's 16 × 8 × 16
//       multiply-add, with PTX's fragment layouts, products exact and sums in float
// Any other instruction fails the launch, naming it.
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <type_traits>

namespace gpulab::emulated::ptx {

// One operand of an asm statement: where an output goes (null for an input) and the value it
// brings (an input's, or an in-out's before the statement).
struct Operand {
  void* target = nullptr;
  std::uint64_t value = 0;
  unsigned bytes = 0;
};

template <typename T>
Operand bits_of(const T& v, void* target) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>, "an asm operand is a register of up to 64 bits");
  Operand o{target, 0, static_cast<unsigned>(sizeof(T))};
  std::memcpy(&o.value, &v, sizeof(T));
  return o;
}
template <typename T>
Operand out(T& v) {  // "=r"(v): its value before is not read
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>, "an asm operand is a register of up to 64 bits");
  return {&v, 0, static_cast<unsigned>(sizeof(T))};
}
template <typename T>
Operand inout(T& v) {  // "+f"(v)
  return bits_of(v, &v);
}
template <typename T>
Operand in(const T& v) {  // "r"(v)
  return bits_of(v, nullptr);
}

// Carries out the PTX `text` for the calling lane (throws what the launch fails with).
void run(const char* text, std::initializer_list<Operand> operands);
// What an asm statement whose operands the rewrite could not read (a macro) becomes: it fails
// the launch that reaches it, saying so.
[[noreturn]] void unreadable(const char* file, int line);

}  // namespace gpulab::emulated::ptx

// The shared-memory window's addresses as PTX's shared state space numbers them (an offset from
// the worker's window), and back.
std::size_t __cvta_generic_to_shared(const void* p);
void* __cvta_shared_to_generic(std::size_t address);
