// What GCC's -fsanitize=thread instrumentation calls in a kernel file built for the emulator:
// before every load and store (__tsan_readN where the type is aligned to its size, as a float4
// is: such an access must start at a multiple of N; __tsan_unaligned_readN where it is not) (volatile ones apart, with
// --param tsan-distinguish-volatile=1) and in place of every atomic operation. ThreadSanitizer's own runtime is not
// linked: the emulator provides these functions itself and hands each access to the checked mode, so it sees, before it
// happens, every access a kernel makes, whether it reads or writes, and which ones are atomic (never a race) — with the
// instruction that makes it.
#include <cstddef>
#include <cstdint>

#include "emulator/execution/shared_memory.hpp"
#include "emulator/observers/checker.hpp"
#include "emulator/runtime/memory.hpp"

namespace {
using gpulab::emulated::check::Access;
// Outside a checked launch every call returns at its first test (check::hooks_on).
// Most accesses touch what no check looks at — the thread's own stack, the kernel's arguments,
// __constant__ and __device__ variables, threadIdx — and leave at once: only device memory, this
// worker's shared-memory window and the first 64 KB (null pointers) go on to the checks.
inline void seen(const void* address, std::size_t size, Access kind, const void* pc, bool typed = false) {
  namespace emu = gpulab::emulated;
  if (!emu::check::hooks_on) return;  // the fast path, or host code between launches
  const auto a = reinterpret_cast<std::uintptr_t>(address);
  if (a - emu::arena_begin >= emu::arena_end - emu::arena_begin &&
      a - emu::shared::window_begin >= emu::shared::window_end - emu::shared::window_begin && a >= 65536) {
    return;
  }
  emu::check::access(a, size, kind, pc, typed);
}
}  // namespace

extern "C" {

void __tsan_init() {}
void __tsan_func_entry(void*) {}
void __tsan_func_exit() {}
void __tsan_vptr_update(void**, void*) {}
void __tsan_vptr_read(void**) {}

#define GPULAB_ACCESS_HOOKS(size)                                                                                 \
  void __tsan_read##size(void* a) { seen(a, size, Access::read, __builtin_return_address(0), true); }             \
  void __tsan_write##size(void* a) { seen(a, size, Access::write, __builtin_return_address(0), true); }           \
  void __tsan_unaligned_read##size(void* a) { seen(a, size, Access::read, __builtin_return_address(0)); }         \
  void __tsan_unaligned_write##size(void* a) { seen(a, size, Access::write, __builtin_return_address(0)); }       \
  void __tsan_volatile_read##size(void* a) { seen(a, size, Access::volatile_read, __builtin_return_address(0)); } \
  void __tsan_volatile_write##size(void* a) { seen(a, size, Access::volatile_write, __builtin_return_address(0)); }
GPULAB_ACCESS_HOOKS(1)
GPULAB_ACCESS_HOOKS(2)
GPULAB_ACCESS_HOOKS(4)
GPULAB_ACCESS_HOOKS(8)
GPULAB_ACCESS_HOOKS(16)
#undef GPULAB_ACCESS_HOOKS

void __tsan_read_range(void* a, std::size_t size) { seen(a, size, Access::read, __builtin_return_address(0)); }
void __tsan_write_range(void* a, std::size_t size) { seen(a, size, Access::write, __builtin_return_address(0)); }

// Atomics: checked (bounds, initcheck), then done for real — blocks run on several cores.
// Every order is sequentially consistent here: stronger than asked is always right.
#define GPULAB_SEEN_ATOMIC(a)                                                                       \
  seen(const_cast<const void*>(static_cast<const volatile void*>(a)), sizeof(*(a)), Access::atomic, \
       __builtin_return_address(0))
#define GPULAB_ATOMIC_RMW(bits, T, name, builtin)           \
  T __tsan_atomic##bits##_##name(volatile T* a, T v, int) { \
    GPULAB_SEEN_ATOMIC(a);                                  \
    return builtin(a, v, __ATOMIC_SEQ_CST);                 \
  }
#define GPULAB_ATOMIC_HOOKS(bits, T)                                                               \
  T __tsan_atomic##bits##_load(const volatile T* a, int) {                                         \
    GPULAB_SEEN_ATOMIC(a);                                                                         \
    return __atomic_load_n(a, __ATOMIC_SEQ_CST);                                                   \
  }                                                                                                \
  void __tsan_atomic##bits##_store(volatile T* a, T v, int) {                                      \
    GPULAB_SEEN_ATOMIC(a);                                                                         \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                      \
  }                                                                                                \
  GPULAB_ATOMIC_RMW(bits, T, exchange, __atomic_exchange_n)                                        \
  GPULAB_ATOMIC_RMW(bits, T, fetch_add, __atomic_fetch_add)                                        \
  GPULAB_ATOMIC_RMW(bits, T, fetch_sub, __atomic_fetch_sub)                                        \
  GPULAB_ATOMIC_RMW(bits, T, fetch_and, __atomic_fetch_and)                                        \
  GPULAB_ATOMIC_RMW(bits, T, fetch_or, __atomic_fetch_or)                                          \
  GPULAB_ATOMIC_RMW(bits, T, fetch_xor, __atomic_fetch_xor)                                        \
  GPULAB_ATOMIC_RMW(bits, T, fetch_nand, __atomic_fetch_nand)                                      \
  int __tsan_atomic##bits##_compare_exchange_strong(volatile T* a, T* expected, T v, int, int) {   \
    GPULAB_SEEN_ATOMIC(a);                                                                         \
    return __atomic_compare_exchange_n(a, expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
  }                                                                                                \
  int __tsan_atomic##bits##_compare_exchange_weak(volatile T* a, T* expected, T v, int, int) {     \
    GPULAB_SEEN_ATOMIC(a);                                                                         \
    return __atomic_compare_exchange_n(a, expected, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);  \
  }                                                                                                \
  T __tsan_atomic##bits##_compare_exchange_val(volatile T* a, T expected, T v, int, int) {         \
    GPULAB_SEEN_ATOMIC(a);                                                                         \
    __atomic_compare_exchange_n(a, &expected, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);       \
    return expected;                                                                               \
  }
GPULAB_ATOMIC_HOOKS(8, std::uint8_t)
GPULAB_ATOMIC_HOOKS(16, std::uint16_t)
GPULAB_ATOMIC_HOOKS(32, std::uint32_t)
GPULAB_ATOMIC_HOOKS(64, std::uint64_t)
#undef GPULAB_ATOMIC_HOOKS
#undef GPULAB_ATOMIC_RMW
#undef GPULAB_SEEN_ATOMIC

// -fsanitize=bounds (learners' code): GCC checks each index into an array of known size (a
// kernel's local `float a[8]`, a row of a 2-D one) and calls this when it is out of range, before
// the access. UBSan's runtime is not linked either; its records' layout is GCC's.
struct UbsanLocation {
  const char* file;
  std::uint32_t line, column;
};
struct UbsanType {
  std::uint16_t kind, info;  // info, for an integer: bit 0 signed, the rest log2 of its width in bits
  char name[1];              // "'float [8]'"
};
struct UbsanOutOfBounds {
  UbsanLocation location;
  const UbsanType* array;
  const UbsanType* index;
};
void __ubsan_handle_out_of_bounds(UbsanOutOfBounds* data, std::uintptr_t index) {
  namespace check = gpulab::emulated::check;
  if (!check::hooks_on) return;  // host code, or the fast path: as the plain build would
  const unsigned bits = 1u << (data->index->info >> 1);
  const bool is_signed = (data->index->info & 1) != 0;
  long long value = static_cast<long long>(index);
  if (is_signed && bits < 64 && (index >> (bits - 1) & 1) != 0) value -= 1LL << bits;  // sign-extended
  check::index_out_of_bounds(data->array->name, value, is_signed && value < 0, __builtin_return_address(0),
                             data->location.file, data->location.line);
}
void __ubsan_handle_out_of_bounds_abort(UbsanOutOfBounds* data, std::uintptr_t index) {
  __ubsan_handle_out_of_bounds(data, index);
}

void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }

}  // extern "C"
