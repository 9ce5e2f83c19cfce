// The source rewrite of rewrite.hpp, on the scanner of rewrite_scan.hpp.
#include "emulator/rewrite/rewrite.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string_view>
#include <vector>

#include "base/text_file.hpp"
#include "emulator/rewrite/rewrite_scan.hpp"

namespace gpulab::emulated {

using namespace scan;

namespace {

// Where to note a `volatile` at `at`: at the start of the body of the function (or loop) whose
// parentheses hold it, or after the statement that declares it inside a body; npos at namespace
// scope or where neither is found.
std::size_t volatile_note_position(const std::string& s, const std::vector<bool>& code, std::size_t at) {
  int depth = 0;
  std::size_t open = std::string::npos;
  for (std::size_t i = at; i-- > 0;) {  // the innermost unclosed ( or { before it
    if (!code[i]) continue;
    if (s[i] == ')' || s[i] == '}') ++depth;
    if (s[i] == '(' || s[i] == '{') {
      if (depth == 0) {
        open = i;
        break;
      }
      --depth;
    }
  }
  if (open != std::string::npos && s[open] == '(') {  // a parameter or loop variable: the body that follows
    const std::size_t close = match_forward(s, code, open);
    for (std::size_t i = close; i != std::string::npos && i < s.size(); ++i) {
      if (!code[i]) continue;
      if (s[i] == '{') return i + 1;
      if (s[i] == ';' || s[i] == '}') return std::string::npos;  // a declaration only
    }
    return std::string::npos;
  }
  if (at_namespace_scope(s, code, at)) return std::string::npos;
  for (std::size_t i = at; i < s.size(); ++i) {
    if (code[i] && s[i] == ';') return i + 1;
  }
  return std::string::npos;
}

struct Edit {
  std::size_t begin, end;
  std::string text;
};

// `__shared__ T a[N], *b;` in a function (the words between `statement` and `semicolon`, which
// hold `__shared__` at `at`) as references to the block's copies; "" when it is not a form this
// knows (an initialiser, a function), which then stays a per-worker variable.
std::string static_shared_declaration(const std::string& s, std::size_t statement, std::size_t at,
                                      std::size_t semicolon) {
  std::string words = s.substr(statement, at - statement) + " " + s.substr(at + 10, semicolon - at - 10);
  words = without_alignment(words);
  for (const std::string drop : {"static", "__device__"}) {
    for (std::size_t p; (p = words.find(drop)) != std::string::npos;) {
      const bool alone = (p == 0 || !ident_char(words[p - 1])) &&
                         (p + drop.size() >= words.size() || !ident_char(words[p + drop.size()]));
      if (!alone) break;
      words.erase(p, drop.size());
    }
  }
  // An initialiser or a function: `=` or `(` outside the array bounds (a bound may hold either:
  // tile[kWarps][32 * (kItems + 1)]).
  std::string outside_bounds;
  int depth = 0;
  for (const char c : words) {
    if (c == '[') ++depth;
    if (depth == 0) outside_bounds += c;
    if (c == ']') --depth;
  }
  if (outside_bounds.find('=') != std::string::npos || outside_bounds.find('(') != std::string::npos) return "";
  const std::vector<std::string> declarators = split_declarators(one_line(words));
  std::string base;
  std::string out;
  for (std::size_t k = 0; k < declarators.size(); ++k) {
    std::string d = trim(declarators[k]);
    const std::size_t bracket = std::min(d.find('['), d.size());
    std::size_t name_end = bracket;
    while (name_end > 0 && std::isspace(static_cast<unsigned char>(d[name_end - 1]))) --name_end;
    std::size_t name_begin = name_end;
    while (name_begin > 0 && ident_char(d[name_begin - 1])) --name_begin;
    if (name_begin == name_end) return "";
    std::string head = trim(d.substr(0, name_begin));  // the type (first) or its pointer stars (later)
    if (k == 0) {
      std::size_t stars = head.size();
      while (stars > 0 && (head[stars - 1] == '*' || head[stars - 1] == '&' ||
                           std::isspace(static_cast<unsigned char>(head[stars - 1]))))
        --stars;
      base = trim(head.substr(0, stars));
      head = head.substr(stars);
      if (base.empty()) return "";
    }
    const std::string name = d.substr(name_begin, name_end - name_begin);
    const std::string type = base + trim(head) + " " + trim(d.substr(bracket));
    out += "auto& " + name + " = ::gpulab::emulated::static_shared<" + trim(type) + ">([] {}, \"" + name + "\", \"" +
           base + "\", __FILE__, __LINE__); ";
  }
  return out;
}

}  // namespace

// The call that stands for the asm statement whose parentheses are [open, close): its template,
// then its operands in GCC's order (outputs, then inputs; the clobbers dropped), each as
// ptx::out, ptx::inout or ptx::in of its expression. The newlines it spanned come after it.
static std::string ptx_call(const std::string& s, const std::vector<bool>& code, std::size_t open, std::size_t close) {
  std::vector<std::pair<std::size_t, std::size_t>> sections;  // split at the top level's ':'
  int depth = 0;
  std::size_t from = open + 1;
  for (std::size_t j = open + 1; j + 1 < close; ++j) {
    if (!code[j]) continue;
    if (s[j] == '(' || s[j] == '[' || s[j] == '{') ++depth;
    if (s[j] == ')' || s[j] == ']' || s[j] == '}') --depth;
    if (depth == 0 && s[j] == ':') {
      sections.emplace_back(from, j);
      from = j + 1;
    }
  }
  sections.emplace_back(from, close - 1);
  std::string text = "::gpulab::emulated::ptx::run(" +
                     trim(s.substr(sections[0].first, sections[0].second - sections[0].first)) + ", {";
  bool first = true;
  for (std::size_t section = 1; section < std::min<std::size_t>(3, sections.size()); ++section) {
    const auto [begin, end] = sections[section];
    std::size_t item = begin;
    depth = 0;
    for (std::size_t j = begin; j <= end; ++j) {
      const bool at_end = j == end;
      if (!at_end && code[j]) {
        if (s[j] == '(' || s[j] == '[' || s[j] == '{') ++depth;
        if (s[j] == ')' || s[j] == ']' || s[j] == '}') --depth;
      }
      if (!at_end && !(code[j] && depth == 0 && s[j] == ',')) continue;
      const std::string operand = trim(s.substr(item, j - item));
      item = j + 1;
      if (operand.empty()) continue;
      const std::size_t quote = operand.find('"'), quote_end = operand.find('"', quote + 1);
      const std::size_t paren = operand.find('(', quote_end == std::string::npos ? 0 : quote_end);
      if (quote == std::string::npos || quote_end == std::string::npos || paren == std::string::npos ||
          operand.back() != ')') {
        // (a macro, say): the statement fails when a kernel reaches it, saying so
        const long lines = std::count(s.begin() + static_cast<long>(open), s.begin() + static_cast<long>(close), '\n');
        return "::gpulab::emulated::ptx::unreadable(__FILE__, __LINE__)" +
               std::string(static_cast<std::size_t>(lines), '\n');
      }
      const std::string constraint = operand.substr(quote + 1, quote_end - quote - 1);
      const std::string expression = operand.substr(paren + 1, operand.size() - paren - 2);
      const char* kind = section == 2 ? "in" : constraint.find('+') != std::string::npos ? "inout" : "out";
      text += std::string(first ? "" : ", ") + "::gpulab::emulated::ptx::" + kind + "(" + expression + ")";
      first = false;
    }
  }
  text += "})";
  const long lost = std::count(s.begin() + static_cast<long>(open), s.begin() + static_cast<long>(close), '\n') -
                    std::count(text.begin(), text.end(), '\n');
  text.append(static_cast<std::size_t>(std::max(0L, lost)), '\n');
  return text;
}

std::string read_source(const std::string& path) {
  std::optional<std::string> text = read_text_file(path);
  if (!text) throw std::invalid_argument("cannot read " + path);
  return std::move(*text);
}

std::string rewrite_cuda(const std::string& s, const std::string& file, const RewriteOptions& options) {
  const std::vector<bool> code = code_mask(s);
  std::vector<Edit> edits;
  const auto word_at = [&](std::size_t i, std::string_view word) {
    return code[i] && s.compare(i, word.size(), word) == 0 && (i == 0 || !ident_char(s[i - 1])) &&
           (i + word.size() >= s.size() || !ident_char(s[i + word.size()]));
  };
  const auto skip_space = [&](std::size_t i) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    return i;
  };

  // In a backend's build, a call of one of the file's own launchers names that build's, qualified:
  // the header's declaration of the launcher's one name (gpulab::X::name) would otherwise be found
  // too, by argument-dependent lookup, and make the call ambiguous.
  std::vector<std::pair<std::size_t, std::size_t>> kernel_bodies;  // where the file's kernels are defined
  std::vector<Launcher> own;
  if (!options.backend_namespace.empty()) {
    try {
      own = find_launchers(s, file);
    } catch (const std::invalid_argument&) {
      // (the dispatch step reports it)
    }
  }
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!code[i]) continue;
    if (!own.empty() && ident_char(s[i]) && (i == 0 || !ident_char(s[i - 1]))) {
      std::size_t end = i;
      while (end < s.size() && ident_char(s[end])) ++end;
      const std::string word = s.substr(i, end - i);
      const auto launcher = std::find_if(own.begin(), own.end(), [&](const Launcher& l) { return l.name == word; });
      std::size_t before = i;
      while (before > 0 && std::isspace(static_cast<unsigned char>(s[before - 1]))) --before;
      const bool member_or_qualified = before > 0 && (s[before - 1] == '.' || s[before - 1] == ':' ||
                                                      (s[before - 1] == '>' && before > 1 && s[before - 2] == '-'));
      if (launcher != own.end() && skip_space(end) < s.size() && s[skip_space(end)] == '(' && !member_or_qualified &&
          !at_namespace_scope(s, code, i)) {
        const std::string relative = launcher->space.substr(std::string("gpulab").size());
        edits.push_back({i, i, "::gpulab::" + options.backend_namespace + relative + "::"});
      }
    }
    // namespace gpulab::X -> namespace gpulab::<backend>::X
    if (!options.backend_namespace.empty() && word_at(i, "namespace")) {
      const std::size_t name = skip_space(i + 9);
      if (word_at(name, "gpulab")) {
        // namespace gpulab::X {  ->  namespace gpulab::X {} namespace gpulab::<backend>::X { using namespace
        // ::gpulab::X; so the file still sees its header's types (gpulab::X::Shape) unqualified.
        std::size_t open = name;
        while (open < s.size() && !(code[open] && (s[open] == '{' || s[open] == ';'))) ++open;
        if (open == s.size() || s[open] != '{') continue;  // a namespace alias or a using-directive
        std::string plain = s.substr(name, open - name);
        plain.erase(std::remove_if(plain.begin(), plain.end(),
                                   [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
                    plain.end());
        edits.push_back({name, name, plain + " {} namespace "});
        edits.push_back({name + 6, name + 6, "::" + options.backend_namespace});
        edits.push_back({open + 1, open + 1, " using namespace ::" + plain + ";"});
        i = open;
        continue;
      }
    }
    if (!options.emulated) continue;
    // __global__ void kernel(...) { -> __global__ GPULAB_INLINED_KERNEL void kernel(...) {: a kernel's
    // definition is inlined into the emulator's checked and fast thread loops (cuda_language.hpp).
    if (word_at(i, "__global__")) {
      int depth = 0;
      std::size_t end = i + 10;
      for (; end < s.size(); ++end) {
        if (!code[end]) continue;
        if (s[end] == '(') ++depth;
        if (s[end] == ')') --depth;
        if (depth == 0 && (s[end] == '{' || s[end] == ';')) break;
      }
      if (end < s.size() && s[end] == '{') {
        edits.push_back({i + 10, i + 10, " GPULAB_INLINED_KERNEL"});
        if (const std::size_t close = match_forward(s, code, end); close != std::string::npos) {
          kernel_bodies.emplace_back(end, close);
        }
      }
      continue;
    }
    // extern __shared__ T name[];  ->  T (&name)[] = ::gpulab::emulated::dynamic_shared<T>();
    if (word_at(i, "extern") && word_at(skip_space(i + 6), "__shared__")) {
      std::size_t semicolon = i;
      while (semicolon < s.size() && !(code[semicolon] && s[semicolon] == ';')) ++semicolon;
      if (semicolon == s.size()) fail(file, s, i, "extern __shared__ declaration without a ';'");
      const std::size_t type_begin = skip_space(i + 6) + 10;
      const std::size_t bracket = s.rfind('[', semicolon);
      std::size_t name_end = bracket;
      while (name_end > type_begin && std::isspace(static_cast<unsigned char>(s[name_end - 1]))) --name_end;
      std::size_t name_begin = name_end;
      while (name_begin > type_begin && ident_char(s[name_begin - 1])) --name_begin;
      if (bracket == std::string::npos || bracket < type_begin || name_begin == name_end) {
        fail(file, s, i, "expected extern __shared__ TYPE NAME[];");
      }
      const std::string type = without_alignment(s.substr(type_begin, name_begin - type_begin));
      const std::string name = s.substr(name_begin, name_end - name_begin);
      const std::string array =
          "::gpulab::emulated::dynamic_shared<" + one_line(type) + ">(\"" + name + "\", \"" + one_line(type) + "\")";
      std::string text = at_namespace_scope(s, code, i)
                             ? "\n#define " + name + " (" + array + ")\n"  // a macro: the buffer is per worker
                             : one_line(type) + " (&" + name + ")[] = " + array + ";";
      const long lines = std::count(s.begin() + static_cast<long>(i), s.begin() + static_cast<long>(semicolon), '\n');
      if (text.front() == '\n') text.erase(0, 1), text.pop_back();
      text.append(static_cast<std::size_t>(lines), '\n');
      edits.push_back({i, semicolon + 1, text});
      i = semicolon;
      continue;
    }
    // __shared__ T name[N];  (in a function)  ->  auto& name = ::gpulab::emulated::static_shared<T[N]>(...);
    if (word_at(i, "__shared__") && !at_namespace_scope(s, code, i)) {
      std::size_t statement = i;
      while (statement > 0 && !(code[statement - 1] &&
                                (s[statement - 1] == ';' || s[statement - 1] == '{' || s[statement - 1] == '}'))) {
        --statement;
      }
      while (statement < i && (!code[statement] || std::isspace(static_cast<unsigned char>(s[statement])))) {
        ++statement;  // past comments before the declaration
      }
      std::size_t semicolon = i;
      while (semicolon < s.size() && !(code[semicolon] && s[semicolon] == ';')) ++semicolon;
      if (semicolon == s.size()) fail(file, s, i, "__shared__ declaration without a ';'");
      std::string text = static_shared_declaration(s, statement, i, semicolon);
      if (!text.empty()) {
        text.append(static_cast<std::size_t>(std::count(s.begin() + static_cast<long>(statement),
                                                        s.begin() + static_cast<long>(semicolon), '\n')),
                    '\n');
        edits.push_back({statement, semicolon + 1, text});
        i = semicolon;
        continue;
      }
    }
    // asm volatile("ptx" : outputs : inputs);  ->  ::gpulab::emulated::ptx::run("ptx", {operands}):
    // the tensor cores' PTX, carried out by the emulator (ptx.hpp).
    if (word_at(i, "asm") || word_at(i, "__asm__") || word_at(i, "__asm")) {
      std::size_t open = i;
      while (open < s.size() && ident_char(s[open])) ++open;
      open = skip_space(open);
      while (word_at(open, "volatile") || word_at(open, "__volatile__") || word_at(open, "__volatile")) {
        while (open < s.size() && ident_char(s[open])) ++open;
        open = skip_space(open);
      }
      if (open >= s.size() || s[open] != '(') fail(file, s, i, "expected asm(\"...\" : outputs : inputs)");
      const std::size_t close = match_forward(s, code, open);
      if (close == std::string::npos) fail(file, s, open, "an asm statement's ( is not closed");
      edits.push_back({i, close, ptx_call(s, code, open, close)});
      i = close - 1;
      continue;
    }
    // volatile in device code: the warp-synchronous style, right only in lockstep. The emulator
    // says so when such code runs in a kernel (note_volatile).
    if (word_at(i, "volatile")) {
      const std::size_t at = volatile_note_position(s, code, i);
      if (at != std::string::npos) edits.push_back({at, at, " ::gpulab::emulated::note_volatile(__FILE__, __LINE__);"});
      continue;
    }
    // kernel<<<config>>>(args)
    if (s.compare(i, 3, "<<<") != 0) continue;
    const std::size_t start = kernel_start(s, code, i);
    if (start == std::string::npos) fail(file, s, i, "cannot find the kernel's name before <<<");
    int depth = 0;
    std::size_t close = std::string::npos;
    std::vector<std::size_t> commas;
    for (std::size_t j = i + 3; j + 2 < s.size(); ++j) {
      if (!code[j]) continue;
      if (s[j] == '(' || s[j] == '[' || s[j] == '{') ++depth;
      if (s[j] == ')' || s[j] == ']' || s[j] == '}') --depth;
      if (depth == 0 && s[j] == ',') commas.push_back(j);
      if (depth == 0 && s.compare(j, 3, ">>>") == 0) {
        close = j;
        break;
      }
    }
    if (close == std::string::npos) fail(file, s, i, "a launch's <<< has no >>>");
    const std::size_t open_args = skip_space(close + 3);
    if (open_args >= s.size() || s[open_args] != '(')
      fail(file, s, close, "a launch's >>> is not followed by (arguments)");
    const std::size_t args_end = match_forward(s, code, open_args);
    if (args_end == std::string::npos) fail(file, s, open_args, "a launch's argument list is not closed");
    if (commas.empty() || commas.size() > 3) {
      fail(file, s, i,
           "a launch takes <<<grid, block>>>, <<<grid, block, shared_bytes>>> or <<<grid, block, "
           "shared_bytes, stream>>>");
    }
    const std::string kernel = s.substr(start, i - start);
    const std::string config = s.substr(i + 3, close - i - 3);
    const std::string args = s.substr(open_args, args_end - open_args);
    // The arguments are evaluated once, on the host, as a GPU launch copies them into the
    // kernel's parameters (an argument with a side effect happens once); each thread calls the
    // kernel with those copies, so default arguments and deduced template arguments work as in any call.
    const std::string inner = args.substr(1, args.size() - 2);
    const bool no_arguments = std::all_of(inner.begin(), inner.end(),
                                          [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
    // The call of the kernel is inlined into the emulator's thread loops, as the kernel is; not a
    // launch inside a kernel (which the emulator refuses as it runs): a kernel that launches
    // itself would be inlined into itself.
    const bool in_kernel = std::any_of(kernel_bodies.begin(), kernel_bodies.end(),
                                       [&](const auto& body) { return start > body.first && start < body.second; });
    std::string text = "::gpulab::emulated::launch_kernel(\"" + one_line(kernel) +
                       "\", __FILE__, __LINE__, ::gpulab::emulated::arguments_once([&](const auto&... "
                       "gpulab_arguments)" +
                       (in_kernel ? "" : " __attribute__((always_inline))") + " { " + kernel +
                       "(gpulab_arguments...); }" + (no_arguments ? "" : ", ") + inner + "), " + config + ")";
    // Lines kept: the newlines of what was between the pieces come after the call.
    const auto newlines = [](std::string_view t) { return std::count(t.begin(), t.end(), '\n'); };
    const long lost = newlines(std::string_view(s).substr(start, args_end - start)) - newlines(kernel) -
                      newlines(config) - newlines(args);
    text.append(static_cast<std::size_t>(std::max(0L, lost)), '\n');
    edits.push_back({start, args_end, text});
    i = args_end - 1;
  }

  // As nvcc does, the CUDA runtime's header comes first (for the emulator, the emulator's).
  std::string out = std::string(options.emulated ? "#include <cuda_runtime.h>\n" : "") + "#line 1 \"" + file + "\"\n";
  std::size_t at = 0;
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
  for (const Edit& e : edits) {
    out.append(s, at, e.begin - at);
    out += e.text;
    at = e.end;
  }
  out.append(s, at, std::string::npos);
  if (options.emulated && options.backend_namespace.empty() && !options.header) {
    // A whole program: it exits non-zero when the checked mode reported an error.
    out += std::string(
               "\n[[maybe_unused]] static const int gpulab_checked_exit = "
               "::gpulab::emulated::check::exit_nonzero_on_errors(") +
           (options.stop_at_reports ? "false" : "true") + ");\n";
  }
  return out;
}

}  // namespace gpulab::emulated
