#pragma once
// The emulator's <mma.h>: the tensor cores' warp matrix operations (nvcuda::wmma) on the CPU.
//
// A fragment is the warp's piece of a small matrix (M × K of A, K × N of B, M × N of the
// accumulator), spread over its 32 lanes: each lane holds `num_elements` of it in `x`. Which lane
// holds which element is the hardware's business (CUDA leaves it unspecified); here lane l holds
// elements l · num_elements ... of the matrix read row by row, so a learner's element-wise loop
// over `x` (scaling an accumulator, say) works as on a GPU.
//   load_matrix_sync   each lane reads its own elements from memory, as the checked mode sees
//                      (bounds, initialisation, races), after CUDA's rules are checked: a 256-bit
//                      aligned pointer and a leading dimension that is a multiple of 16 bytes
//   store_matrix_sync  each lane writes its own elements
//   mma_sync           the lanes pool A and B through warp exchanges (the emulator's shuffles), and
//                      each computes its elements of D = A B + C, every product exact and summed
//                      in the accumulator's type (FP32 for FP16, BF16 and TF32 inputs), as the tensor
//                      cores do up to the order of the sums
// Shapes: any M, N, K whose fragments split evenly over 32 lanes (m16n16k16, m32n8k16, m8n32k16,
// m16n16k8 for TF32, m8n8k4 for double, ...). Not modelled: the sub-byte types (precision::u4,
// s4, b1) and the satf flag.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cuda_bf16.h"
#include "cuda_fp16.h"
#include "cuda_runtime.h"

namespace nvcuda::wmma {

struct row_major;
struct col_major;
struct matrix_a;
struct matrix_b;
struct accumulator;
enum layout_t { mem_row_major, mem_col_major };
namespace precision {
struct tf32;  // TF32 inputs: stored in floats, of which the tensor cores read 19 bits
}  // namespace precision

namespace detail {
// What an element type is stored as in a fragment (TF32 in a float).
template <typename T>
struct storage {
  using type = T;
};
template <>
struct storage<precision::tf32> {
  using type = float;
};
// The fragment's matrix: rows × cols.
template <typename Use, int M, int N, int K>
struct shape {
  static constexpr int rows = std::is_same_v<Use, matrix_b> ? K : M;
  static constexpr int cols = std::is_same_v<Use, matrix_a> ? K : N;
};
}  // namespace detail

template <typename Use, int M, int N, int K, typename T, typename Layout = void>
class fragment {
 public:
  using element_type = T;
  using storage_element_type = typename detail::storage<T>::type;
  static constexpr int rows = detail::shape<Use, M, N, K>::rows, cols = detail::shape<Use, M, N, K>::cols;
  static_assert(rows * cols % 32 == 0, "a fragment's elements must split evenly over the warp's 32 lanes");
  enum { num_elements = rows * cols / 32 };
  storage_element_type x[num_elements];
};

// TF32 as the tensor cores take it: the float rounded to 10 bits of mantissa (nearest, ties away).
inline float __float_to_tf32(float in) {
  std::uint32_t bits;
  std::memcpy(&bits, &in, 4);
  if ((bits & 0x7F800000u) != 0x7F800000u) bits = (bits + 0x1000u) & 0xFFFFE000u;  // not Inf or NaN
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

namespace detail {

inline unsigned lane() { return ::gpulab::emulated::detail::lane_id(); }

// CUDA's rules for the memory a fragment moves: what the GPU would fault on or read wrongly.
inline void check_memory(const char* operation, const void* pointer, unsigned ldm, std::size_t element_bytes) {
  if (reinterpret_cast<std::uintptr_t>(pointer) % 32 != 0) {
    throw std::runtime_error(std::string("wmma::") + operation +
                             ": the pointer is not 256-bit (32-byte) aligned, as the tensor cores' loads and stores "
                             "require (misaligned address): start each tile at a multiple of 32 bytes");
  }
  if (ldm * element_bytes % 16 != 0) {
    throw std::runtime_error(std::string("wmma::") + operation + ": the leading dimension " + std::to_string(ldm) +
                             " is not a multiple of 16 bytes (" + std::to_string(16 / element_bytes) +
                             " elements), as CUDA requires");
  }
}

// Where element (row, col) of a rows × cols matrix is, `ldm` apart, in the layout given.
inline std::size_t offset(int row, int col, unsigned ldm, bool row_major) {
  return row_major ? static_cast<std::size_t>(row) * ldm + static_cast<std::size_t>(col)
                   : static_cast<std::size_t>(col) * ldm + static_cast<std::size_t>(row);
}

template <typename Frag, typename Memory>
void load(Frag& f, const Memory* p, unsigned ldm, bool row_major) {
  check_memory("load_matrix_sync", p, ldm, sizeof(Memory));
  const int first = static_cast<int>(lane()) * Frag::num_elements;
  for (int e = 0; e < Frag::num_elements; ++e) {
    const int i = first + e;
    f.x[e] = p[offset(i / Frag::cols, i % Frag::cols, ldm, row_major)];
  }
}

// The whole matrix of a fragment, gathered from the warp's lanes, 8 bytes per exchange.
template <typename Frag>
void gather(const Frag& f, typename Frag::storage_element_type (&all)[Frag::rows * Frag::cols]) {
  using S = typename Frag::storage_element_type;
  constexpr std::size_t lane_bytes = sizeof(S) * Frag::num_elements, words = (lane_bytes + 7) / 8;
  unsigned char mine[words * 8] = {};
  std::memcpy(mine, f.x, lane_bytes);
  auto* out = reinterpret_cast<unsigned char*>(all);
  for (std::size_t w = 0; w < words; ++w) {
    std::uint64_t word;
    std::memcpy(&word, mine + 8 * w, 8);
    const auto exchange = ::gpulab::emulated::detail::warp_exchange(0xFFFFFFFFu, word);
    for (unsigned l = 0; l < 32; ++l) {
      const std::size_t at = l * lane_bytes + 8 * w, n = lane_bytes - 8 * w < 8 ? lane_bytes - 8 * w : 8;
      std::memcpy(out + at, &exchange.slots[l], n);
    }
  }
}

// An input element as the tensor cores multiply it.
template <typename T, typename S>
auto input(S v) {
  if constexpr (std::is_same_v<T, precision::tf32>) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    bits &= 0xFFFFE000u;  // the 19 bits the tensor cores read
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<int>(v);
  } else if constexpr (std::is_same_v<T, double>) {
    return v;
  } else {
    return static_cast<float>(v);
  }
}

}  // namespace detail

template <typename Use, int M, int N, int K, typename T, typename Layout>
void fill_fragment(fragment<Use, M, N, K, T, Layout>& f,
                   const typename fragment<Use, M, N, K, T, Layout>::storage_element_type& v) {
  for (auto& e : f.x) e = v;
}

// A or B, in the fragment's own layout.
template <typename Use, int M, int N, int K, typename T, typename Layout, typename Memory>
void load_matrix_sync(fragment<Use, M, N, K, T, Layout>& f, const Memory* p, unsigned ldm) {
  static_assert(!std::is_same_v<Layout, void>,
                "an accumulator's load names its layout: mem_row_major or mem_col_major");
  detail::load(f, p, ldm, std::is_same_v<Layout, row_major>);
}

// An accumulator, in the layout named.
template <int M, int N, int K, typename T>
void load_matrix_sync(fragment<accumulator, M, N, K, T>& f, const T* p, unsigned ldm, layout_t layout) {
  detail::load(f, p, ldm, layout == mem_row_major);
}

template <int M, int N, int K, typename T>
void store_matrix_sync(T* p, const fragment<accumulator, M, N, K, T>& f, unsigned ldm, layout_t layout) {
  using Frag = fragment<accumulator, M, N, K, T>;
  detail::check_memory("store_matrix_sync", p, ldm, sizeof(T));
  const int first = static_cast<int>(detail::lane()) * Frag::num_elements;
  for (int e = 0; e < Frag::num_elements; ++e) {
    const int i = first + e;
    p[detail::offset(i / Frag::cols, i % Frag::cols, ldm, layout == mem_row_major)] = f.x[e];
  }
}

// D = A B + C, the warp together.
template <int M, int N, int K, typename Tc, typename Ta, typename LayoutA, typename Tb, typename LayoutB>
void mma_sync(fragment<accumulator, M, N, K, Tc>& d, const fragment<matrix_a, M, N, K, Ta, LayoutA>& a,
              const fragment<matrix_b, M, N, K, Tb, LayoutB>& b, const fragment<accumulator, M, N, K, Tc>& c,
              bool /*satf: not modelled*/ = false) {
  using FragA = fragment<matrix_a, M, N, K, Ta, LayoutA>;
  using FragB = fragment<matrix_b, M, N, K, Tb, LayoutB>;
  using FragC = fragment<accumulator, M, N, K, Tc>;
  typename FragA::storage_element_type all_a[M * K];
  typename FragB::storage_element_type all_b[K * N];
  detail::gather(a, all_a);
  detail::gather(b, all_b);
  const int first = static_cast<int>(detail::lane()) * FragC::num_elements;
  FragC result;
  for (int e = 0; e < FragC::num_elements; ++e) {
    const int row = (first + e) / N, col = (first + e) % N;
    using Sum = decltype(detail::input<Ta>(all_a[0]) * detail::input<Tb>(all_b[0]));
    Sum sum = static_cast<Sum>(c.x[e]);
    for (int k = 0; k < K; ++k) sum += detail::input<Ta>(all_a[row * K + k]) * detail::input<Tb>(all_b[k * N + col]);
    result.x[e] = static_cast<Tc>(sum);
  }
  d = result;  // (d may be c)
}

}  // namespace nvcuda::wmma
