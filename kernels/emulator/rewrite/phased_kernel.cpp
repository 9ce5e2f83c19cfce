// The phased copy of a kernel (phased_kernel.hpp).
#include "emulator/rewrite/phased_kernel.hpp"

#include <cctype>
#include <map>
#include <string_view>
#include <unordered_set>

#include "emulator/rewrite/rewrite_scan.hpp"

namespace gpulab::emulated::jobs {

using namespace scan;

namespace {

// What a phased body may call: C++'s words that take parentheses, the types a functional cast
// names, and the device language's functions that neither wait nor exchange (arithmetic, math,
// bit and conversion intrinsics, atomics, fences, loads, printf and assert).
const std::unordered_set<std::string_view>& callable() {
  static const std::unordered_set<std::string_view> names = {"if",
                                                             "for",
                                                             "while",
                                                             "switch",
                                                             "return",
                                                             "sizeof",
                                                             "alignof",
                                                             "decltype",
                                                             "noexcept",
                                                             "static_assert",
                                                             "__align__",
                                                             "alignas",
                                                             "__launch_bounds__",
                                                             "static_cast",
                                                             "reinterpret_cast",
                                                             "const_cast",
                                                             "int",
                                                             "float",
                                                             "double",
                                                             "unsigned",
                                                             "signed",
                                                             "char",
                                                             "short",
                                                             "long",
                                                             "bool",
                                                             "size_t",
                                                             "int8_t",
                                                             "uint8_t",
                                                             "int16_t",
                                                             "uint16_t",
                                                             "int32_t",
                                                             "uint32_t",
                                                             "int64_t",
                                                             "uint64_t",
                                                             "ptrdiff_t",
                                                             "uintptr_t",
                                                             "dim3",
                                                             "uint3",
                                                             "int2",
                                                             "int3",
                                                             "int4",
                                                             "float2",
                                                             "float3",
                                                             "float4",
                                                             "uint2",
                                                             "uint4",
                                                             "double2",
                                                             "make_int2",
                                                             "make_int3",
                                                             "make_int4",
                                                             "make_uint2",
                                                             "make_uint3",
                                                             "make_uint4",
                                                             "make_float2",
                                                             "make_float3",
                                                             "make_float4",
                                                             "make_double2",
                                                             "min",
                                                             "max",
                                                             "abs",
                                                             "fabs",
                                                             "fabsf",
                                                             "fmin",
                                                             "fminf",
                                                             "fmax",
                                                             "fmaxf",
                                                             "sqrt",
                                                             "sqrtf",
                                                             "rsqrt",
                                                             "rsqrtf",
                                                             "cbrt",
                                                             "cbrtf",
                                                             "exp",
                                                             "expf",
                                                             "exp2",
                                                             "exp2f",
                                                             "exp10f",
                                                             "expm1f",
                                                             "__expf",
                                                             "log",
                                                             "logf",
                                                             "log2",
                                                             "log2f",
                                                             "log10",
                                                             "log10f",
                                                             "log1pf",
                                                             "__logf",
                                                             "pow",
                                                             "powf",
                                                             "__powf",
                                                             "sin",
                                                             "sinf",
                                                             "cos",
                                                             "cosf",
                                                             "tan",
                                                             "tanf",
                                                             "__sinf",
                                                             "__cosf",
                                                             "__tanf",
                                                             "sincosf",
                                                             "asinf",
                                                             "acosf",
                                                             "atanf",
                                                             "atan2",
                                                             "atan2f",
                                                             "sinh",
                                                             "sinhf",
                                                             "cosh",
                                                             "coshf",
                                                             "tanh",
                                                             "tanhf",
                                                             "erf",
                                                             "erff",
                                                             "erfc",
                                                             "erfcf",
                                                             "floor",
                                                             "floorf",
                                                             "ceil",
                                                             "ceilf",
                                                             "round",
                                                             "roundf",
                                                             "rint",
                                                             "rintf",
                                                             "lrintf",
                                                             "trunc",
                                                             "truncf",
                                                             "fmod",
                                                             "fmodf",
                                                             "remainderf",
                                                             "copysign",
                                                             "copysignf",
                                                             "hypot",
                                                             "hypotf",
                                                             "fma",
                                                             "fmaf",
                                                             "isnan",
                                                             "isinf",
                                                             "isfinite",
                                                             "signbit",
                                                             "__fmaf_rn",
                                                             "__fmul_rn",
                                                             "__fadd_rn",
                                                             "__fsub_rn",
                                                             "__fdiv_rn",
                                                             "__fdividef",
                                                             "__frcp_rn",
                                                             "__fsqrt_rn",
                                                             "__saturatef",
                                                             "__float2int_rn",
                                                             "__float2int_rz",
                                                             "__float2uint_rn",
                                                             "__int2float_rn",
                                                             "__uint2float_rn",
                                                             "__float_as_int",
                                                             "__int_as_float",
                                                             "__float_as_uint",
                                                             "__uint_as_float",
                                                             "__double_as_longlong",
                                                             "__longlong_as_double",
                                                             "__float2half",
                                                             "__float2half_rn",
                                                             "__half2float",
                                                             "__float2bfloat16",
                                                             "__bfloat162float",
                                                             "__hadd",
                                                             "__hsub",
                                                             "__hmul",
                                                             "__hfma",
                                                             "__popc",
                                                             "__popcll",
                                                             "__clz",
                                                             "__clzll",
                                                             "__ffs",
                                                             "__ffsll",
                                                             "__brev",
                                                             "__mul24",
                                                             "__umul24",
                                                             "__mulhi",
                                                             "__umulhi",
                                                             "__ldg",
                                                             "__ldcg",
                                                             "__ldca",
                                                             "__ldcs",
                                                             "__stcg",
                                                             "__stcs",
                                                             "__stwb",
                                                             "atomicAdd",
                                                             "atomicSub",
                                                             "atomicExch",
                                                             "atomicMin",
                                                             "atomicMax",
                                                             "atomicInc",
                                                             "atomicDec",
                                                             "atomicCAS",
                                                             "atomicAnd",
                                                             "atomicOr",
                                                             "atomicXor",
                                                             "atomicAdd_block",
                                                             "atomicAdd_system",
                                                             "__threadfence",
                                                             "__threadfence_block",
                                                             "__threadfence_system",
                                                             "printf",
                                                             "assert"};
  return names;
}

// Words a coroutine cannot hold, or that a phased body must not have.
bool refused(std::string_view word) {
  static const std::unordered_set<std::string_view> words = {"goto",    "try",   "catch",    "throw",     "asm",
                                                             "__asm__", "__asm", "co_await", "co_return", "co_yield"};
  return words.count(word) != 0;
}

std::size_t word_end(const std::string& s, std::size_t i) {
  while (i < s.size() && ident_char(s[i])) ++i;
  return i;
}

std::size_t skip_space(const std::string& s, std::size_t i) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

// Where the code character before i is (skipping spaces), or npos.
std::size_t code_before(const std::string& s, const std::vector<bool>& code, std::size_t i) {
  while (i-- > 0) {
    if (code[i] && !std::isspace(static_cast<unsigned char>(s[i]))) return i;
  }
  return std::string::npos;
}

// The word that ends at `last` (its last character).
std::string_view word_ending(const std::string& s, std::size_t last) {
  std::size_t first = last;
  while (first > 0 && ident_char(s[first - 1])) --first;
  return std::string_view(s.data() + first, last + 1 - first);
}

// Whether `word <` at `less` opens template arguments followed by a call (max<float>(a, b)),
// rather than a comparison: a `>` that closes it before the statement or condition ends, then `(`.
bool template_call(const std::string& s, const std::vector<bool>& code, std::size_t less, std::size_t end) {
  int angles = 0, parens = 0;
  for (std::size_t j = less; j < end; ++j) {
    if (!code[j]) continue;
    const char c = s[j];
    if (c == ';' || c == '{' || c == '}' || (parens == 0 && (s.compare(j, 2, "&&") == 0 || s.compare(j, 2, "||") == 0)))
      return false;
    if (c == '(') ++parens;
    if (c == ')' && --parens < 0) return false;
    if (c == '<') ++angles;
    if (c == '>' && --angles == 0) {
      const std::size_t after = skip_space(s, j + 1);
      return after < end && s[after] == '(';
    }
  }
  return false;
}

}  // namespace

namespace {

// What in the body {…} at [open, close) a phased copy could not hold or see through ("" when
// nothing), and whether it has a `__syncthreads();` of its own. `plain`: the file's own device
// functions that may be called (plain_device_functions).
std::string obstacle(const std::string& s, const std::vector<bool>& code, std::size_t open, std::size_t close,
                     const std::set<std::string, std::less<>>& plain, bool& barrier) {
  barrier = false;
  for (std::size_t i = open + 1; i + 1 < close; ++i) {
    if (!code[i]) continue;
    const char c = s[i];
    if (c == '#' && code_before(s, code, i) != std::string::npos && s[code_before(s, code, i)] != '\n') {
      const std::size_t line_start = s.rfind('\n', i);
      if (s.find_first_not_of(" \t", line_start + 1) == i) {  // a directive (#pragma unroll): to its line's end
        i = s.find('\n', i);
        if (i == std::string::npos || i >= close) break;
        continue;
      }
    }
    if (c == '[') {  // a lambda (its body would be a function of its own), unless an index or an attribute
      if (i + 1 < close && s[i + 1] == '[') {
        i = s.find("]]", i);
        if (i == std::string::npos || i >= close) return "an attribute's [[ is not closed";
        continue;
      }
      const std::size_t before = code_before(s, code, i);
      if (before == std::string::npos) return "a lambda";
      const bool indexed =
          (ident_char(s[before]) && word_ending(s, before) != "return") || s[before] == ')' || s[before] == ']';
      if (!indexed) return "a lambda";
      continue;
    }
    if (!ident_char(c) || std::isdigit(static_cast<unsigned char>(c)) || ident_char(s[i - 1])) continue;
    const std::size_t end = word_end(s, i);
    const std::string_view word(s.data() + i, end - i);
    const std::size_t after = skip_space(s, end);
    if (refused(word)) return std::string(word);
    if (word == "__syncthreads") {  // as a statement of its own: `__syncthreads();`
      const std::size_t close_paren = after < close && s[after] == '(' ? skip_space(s, after + 1) : close;
      if (close_paren >= close || s[close_paren] != ')') return "__syncthreads not called as __syncthreads()";
      const std::size_t semicolon = skip_space(s, close_paren + 1);
      const std::size_t before = code_before(s, code, i);
      if (semicolon >= close || s[semicolon] != ';' || before == std::string::npos ||
          std::string_view(";{}):").find(s[before]) == std::string_view::npos)
        return "__syncthreads() in an expression";
      barrier = true;
      i = semicolon;
      continue;
    }
    const std::size_t before = code_before(s, code, i);
    const bool member =
        before != std::string::npos && (s[before] == '.' || (s[before] == '>' && before > 0 && s[before - 1] == '-'));
    const bool called =
        after < close &&
        (s[after] == '(' || (s[after] == '<' && word != "operator" && template_call(s, code, after, close)));
    if (called && member) return "a member call " + std::string(word);
    if (called && callable().count(word) == 0 && plain.count(word) == 0) return "a call of " + std::string(word);
    i = end - 1;
  }
  return "";
}

}  // namespace

std::set<std::string, std::less<>> plain_device_functions(const std::string& s, const std::vector<bool>& code) {
  // Each __device__ function's name and bodies (an overload's too).
  std::map<std::string, std::vector<std::pair<std::size_t, std::size_t>>, std::less<>> functions;
  for (std::size_t at = s.find("__device__"); at != std::string::npos; at = s.find("__device__", at + 1)) {
    if (!code[at] || (at > 0 && ident_char(s[at - 1])) || ident_char(s[at + 10])) continue;
    std::size_t paren = at;
    while (paren < s.size() &&
           !(code[paren] && (s[paren] == '(' || s[paren] == ';' || s[paren] == '=' || s[paren] == '{')))
      ++paren;
    if (paren == s.size() || s[paren] != '(') continue;  // a variable
    std::size_t name_end = paren;
    while (name_end > at && std::isspace(static_cast<unsigned char>(s[name_end - 1]))) --name_end;
    std::size_t name_begin = name_end;
    while (name_begin > at && ident_char(s[name_begin - 1])) --name_begin;
    const std::size_t parameters_end = match_forward(s, code, paren);
    if (name_begin == name_end || parameters_end == std::string::npos) continue;
    std::size_t open = parameters_end;
    while (open < s.size() && !(code[open] && (s[open] == '{' || s[open] == ';'))) ++open;
    if (open == s.size() || s[open] != '{') continue;  // a declaration
    const std::size_t close = match_forward(s, code, open);
    if (close == std::string::npos) continue;
    functions[s.substr(name_begin, name_end - name_begin)].emplace_back(open, close);
  }
  // Plain: every body free of barriers, warp operations and calls but to plain functions (so far).
  std::set<std::string, std::less<>> plain;
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [name, bodies] : functions) {
      if (plain.count(name) != 0) continue;
      bool all = true;
      for (const auto& [open, close] : bodies) {
        bool barrier = false;
        all = all && obstacle(s, code, open, close, plain, barrier).empty() && !barrier;
      }
      if (all) plain.insert(name), grew = true;
    }
  }
  return plain;
}

std::string why_not_phased(const std::string& s, const std::vector<bool>& code, std::size_t open, std::size_t close,
                           const std::set<std::string, std::less<>>& plain) {
  bool barrier = false;
  const std::string why = obstacle(s, code, open, close, plain, barrier);
  return !why.empty() ? why : barrier ? "" : "no __syncthreads() of its own";
}

std::string phased_begin_mark(int line) { return "/*gpulab:phased{" + std::to_string(line) + "*/"; }

std::string add_phased_copies(const std::string& rewritten, const std::string& file) {
  static const std::string begin_mark = "/*gpulab:phased{", end_mark = kPhasedEndMark;
  std::string out;
  std::size_t at = 0;
  for (std::size_t begin; (begin = rewritten.find(begin_mark, at)) != std::string::npos;) {
    const std::size_t number = begin + begin_mark.size();
    const std::size_t body = rewritten.find("*/", number) + 2;
    const std::size_t end = rewritten.find(end_mark, body);
    const std::string line = rewritten.substr(number, body - 2 - number);
    const std::string original = rewritten.substr(body, end - body);
    // The copy: each `__syncthreads()` a suspension, each `return` the coroutine's.
    const std::vector<bool> code = code_mask(original);
    std::string copy;
    for (std::size_t i = 0; i < original.size(); ++i) {
      const bool word_start = code[i] && (i == 0 || !ident_char(original[i - 1]));
      if (word_start && original.compare(i, 13, "__syncthreads") == 0 && !ident_char(original[i + 13])) {
        const std::size_t paren = original.find(')', i);
        copy += "co_await ::gpulab::emulated::detail::PhaseBarrier{__FILE__, __LINE__}";
        i = paren;
      } else if (word_start && original.compare(i, 6, "return") == 0 &&
                 (i + 6 == original.size() || !ident_char(original[i + 6]))) {
        copy += "co_return";
        i += 5;
      } else {
        copy += original[i];
      }
    }
    const std::string line_directive = "\n#line " + line + " \"" + file + "\"\n";
    out.append(rewritten, at, begin - at);
    out += line_directive +
           "if (::gpulab::emulated::detail::phases_on) { ::gpulab::emulated::detail::run_phased([=](auto) mutable "
           "__attribute__((no_sanitize_thread)) -> ::gpulab::emulated::detail::PhasedThread {" +
           copy + "}); return; }" + line_directive + original;
    at = end + end_mark.size();
  }
  out.append(rewritten, at, std::string::npos);
  return out;
}

}  // namespace gpulab::emulated::jobs
