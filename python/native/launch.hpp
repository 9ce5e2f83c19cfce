#pragma once
// What a kernel module Python builds (python/gpulab/_modules.py) appends to the learner's source:
// for each kernel, a C function that launches it with CuPy's calling convention — the grid, the
// block, the dynamic shared memory, the stream and one pointer per argument — through the
// source's own kernel<<<...>>>, so that on the emulator the launch is rewritten, named and
// checked like any other; and one that tells Python the kernel's parameters (their sizes and
// kinds), so that a wrong argument is a Python TypeError, not a wrong read.
#include <cstddef>
#include <type_traits>
#include <utility>

namespace gpulab_python {

// A parameter's kind, as Python marshals it.
enum Kind : int { pointer = 0, signed_integer = 1, unsigned_integer = 2, floating = 3, boolean = 4, other = 5 };

template <class T>
constexpr int kind_of() {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::is_pointer_v<U>)
    return pointer;
  else if constexpr (std::is_same_v<U, bool>)
    return boolean;
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>)
    return signed_integer;
  else if constexpr (std::is_integral_v<U>)
    return unsigned_integer;
  else if constexpr (std::is_floating_point_v<U>)
    return floating;
  else
    return other;
}

template <class F>
struct Parameters;
template <class... P>
struct Parameters<void(P...)> {
  static constexpr int count = sizeof...(P);
  static constexpr std::size_t sizes[sizeof...(P) + 1] = {sizeof(std::remove_cvref_t<P>)..., 0};
  static constexpr int kinds[sizeof...(P) + 1] = {kind_of<P>()..., 0};
  // Calls `launch` with each argument read from where args[i] points, as its parameter's type.
  template <class Launch>
  static void call(void** args, const Launch& launch) {
    [&]<std::size_t... I>(std::index_sequence<I...>) { launch(*static_cast<std::remove_cvref_t<P>*>(args[I])...); }
    (std::index_sequence_for<P...>{});
  }
};

template <class F>
int describe(const std::size_t** sizes, const int** kinds) {
  *sizes = Parameters<F>::sizes;
  *kinds = Parameters<F>::kinds;
  return Parameters<F>::count;
}

}  // namespace gpulab_python
