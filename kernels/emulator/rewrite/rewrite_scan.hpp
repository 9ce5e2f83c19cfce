#pragma once
// The scanner under the source rewrite (rewrite.cpp) and the launchers' dispatch
// (launcher_dispatch.cpp): what is code and what is a comment or a literal, matching brackets,
// declarations and the launchers a kernel file defines. Internal to the emulator's build tools.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab::emulated::scan {

bool ident_char(char c);
// Positions of the source that are code (not inside a comment or a literal).
std::vector<bool> code_mask(const std::string& s);
int line_of(const std::string& s, std::size_t pos);
// Throws std::invalid_argument "file:line: what" for the line of `pos`.
[[noreturn]] void fail(const std::string& file, const std::string& s, std::size_t pos, const std::string& what);
// The end of the bracketed group opening at `open` (one past its closing bracket), skipping
// what is not code.
std::size_t match_forward(const std::string& s, const std::vector<bool>& code, std::size_t open);
// The start of the kernel expression that ends just before `end`: a name, maybe qualified
// (ns::kernel), maybe with template arguments (kernel<float, 4>), or a parenthesised expression.
std::size_t kernel_start(const std::string& s, const std::vector<bool>& code, std::size_t end);
// The text on one line, single spaces, quotes and backslashes escaped for a string literal.
std::string one_line(std::string_view text);
// The type of a declaration without __align__(n) or alignas(n) (the buffer is aligned anyway).
std::string without_alignment(std::string type);
// Whether position `at` is at namespace scope: no open brace before it, or only those of
// namespaces and extern "C".
bool at_namespace_scope(const std::string& s, const std::vector<bool>& code, std::size_t at);
// Splits at the commas that are not inside brackets or template arguments.
std::vector<std::string> split_declarators(const std::string& text);
std::string trim(const std::string& t);
// The name a parameter declaration gives ("" where it gives none): `const float* x` -> x,
// `void (*f)(int)` -> f, `int` and `const Shape&` -> "".
std::string parameter_name(std::string p);

struct Launcher {
  std::string space;   // "gpulab::conv"
  std::string result;  // "void"
  std::string name;
  std::string parameters;
  std::vector<std::string> arguments;
  int line = 0;
};

// The functions a source file defines directly in a named namespace of gpulab, other than
// kernels, device functions, templates, inline and static ones: its launchers.
std::vector<Launcher> find_launchers(const std::string& s, const std::string& file);

}  // namespace gpulab::emulated::scan
