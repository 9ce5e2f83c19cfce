// The source rewrite's jobs (rewrite_jobs.hpp), on the scanner of rewrite_scan.hpp.
#include "emulator/rewrite/rewrite_jobs.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "emulator/rewrite/phased_kernel.hpp"

namespace gpulab::emulated::jobs {

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

// The call that stands for the asm statement whose parentheses are [open, close): its template,
// then its operands in GCC's order (outputs, then inputs; the clobbers dropped), each as
// ptx::out, ptx::inout or ptx::in of its expression. The newlines it spanned come after it.
std::string ptx_call(const std::string& s, const std::vector<bool>& code, std::size_t open, std::size_t close) {
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

}  // namespace

bool Source::word_at(std::size_t i, std::string_view word) const {
  return code[i] && s.compare(i, word.size(), word) == 0 && (i == 0 || !ident_char(s[i - 1])) &&
         (i + word.size() >= s.size() || !ident_char(s[i + word.size()]));
}

std::size_t Source::skip_space(std::size_t i) const {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

void qualify_own_launcher_call(Source& src, std::size_t i) {
  const std::string& s = src.s;
  if (src.own.empty() || !ident_char(s[i]) || (i > 0 && ident_char(s[i - 1]))) return;
  std::size_t end = i;
  while (end < s.size() && ident_char(s[end])) ++end;
  const std::string word = s.substr(i, end - i);
  const auto launcher = std::find_if(src.own.begin(), src.own.end(), [&](const Launcher& l) { return l.name == word; });
  std::size_t before = i;
  while (before > 0 && std::isspace(static_cast<unsigned char>(s[before - 1]))) --before;
  const bool member_or_qualified = before > 0 && (s[before - 1] == '.' || s[before - 1] == ':' ||
                                                  (s[before - 1] == '>' && before > 1 && s[before - 2] == '-'));
  const std::size_t after = src.skip_space(end);
  if (launcher != src.own.end() && after < s.size() && s[after] == '(' && !member_or_qualified &&
      !at_namespace_scope(s, src.code, i)) {
    const std::string relative = launcher->space.substr(std::string("gpulab").size());
    src.edits.push_back({i, i, "::gpulab::" + src.options.backend_namespace + relative + "::"});
  }
}

std::optional<std::size_t> backend_namespace(Source& src, std::size_t i) {
  const std::string& s = src.s;
  if (src.options.backend_namespace.empty() || !src.word_at(i, "namespace")) return std::nullopt;
  const std::size_t name = src.skip_space(i + 9);
  if (!src.word_at(name, "gpulab")) return std::nullopt;
  // The file still sees its header's types (gpulab::X::Shape) unqualified, through the using.
  std::size_t open = name;
  while (open < s.size() && !(src.code[open] && (s[open] == '{' || s[open] == ';'))) ++open;
  if (open == s.size() || s[open] != '{') return i;  // a namespace alias or a using-directive
  std::string plain = s.substr(name, open - name);
  plain.erase(
      std::remove_if(plain.begin(), plain.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
      plain.end());
  src.edits.push_back({name, name, plain + " {} namespace "});
  src.edits.push_back({name + 6, name + 6, "::" + src.options.backend_namespace});
  src.edits.push_back({open + 1, open + 1, " using namespace ::" + plain + ";"});
  return open;
}

std::optional<std::size_t> kernel_definition(Source& src, std::size_t i) {
  const std::string& s = src.s;
  if (!src.word_at(i, "__global__")) return std::nullopt;
  // A kernel's definition is inlined into the emulator's checked and fast thread loops
  // (cuda_language.hpp); a declaration is left as it is.
  int depth = 0;
  std::size_t end = i + 10;
  for (; end < s.size(); ++end) {
    if (!src.code[end]) continue;
    if (s[end] == '(') ++depth;
    if (s[end] == ')') --depth;
    if (depth == 0 && (s[end] == '{' || s[end] == ';')) break;
  }
  if (end < s.size() && s[end] == '{') {
    src.edits.push_back({i + 10, i + 10, " GPULAB_INLINED_KERNEL"});
    if (const std::size_t close = match_forward(s, src.code, end); close != std::string::npos) {
      src.kernel_bodies.emplace_back(end, close);
      // Its barriers in plain view: a second body, run in phases on the fast path (phased_kernel.hpp).
      if (!src.plain_functions) src.plain_functions = plain_device_functions(s, src.code);
      if (why_not_phased(s, src.code, end, close, *src.plain_functions).empty()) {
        src.edits.push_back({end + 1, end + 1, phased_begin_mark(line_of(s, end))});
        src.edits.push_back({close - 1, close - 1, kPhasedEndMark});
      }
    }
  }
  return i;
}

std::optional<std::size_t> dynamic_shared(Source& src, std::size_t i) {
  const std::string& s = src.s;
  if (!src.word_at(i, "extern") || !src.word_at(src.skip_space(i + 6), "__shared__")) return std::nullopt;
  std::size_t semicolon = i;
  while (semicolon < s.size() && !(src.code[semicolon] && s[semicolon] == ';')) ++semicolon;
  if (semicolon == s.size()) fail(src.file, s, i, "extern __shared__ declaration without a ';'");
  const std::size_t type_begin = src.skip_space(i + 6) + 10;
  const std::size_t bracket = s.rfind('[', semicolon);
  std::size_t name_end = bracket;
  while (name_end > type_begin && std::isspace(static_cast<unsigned char>(s[name_end - 1]))) --name_end;
  std::size_t name_begin = name_end;
  while (name_begin > type_begin && ident_char(s[name_begin - 1])) --name_begin;
  if (bracket == std::string::npos || bracket < type_begin || name_begin == name_end) {
    fail(src.file, s, i, "expected extern __shared__ TYPE NAME[];");
  }
  const std::string type = without_alignment(s.substr(type_begin, name_begin - type_begin));
  const std::string name = s.substr(name_begin, name_end - name_begin);
  const std::string array =
      "::gpulab::emulated::dynamic_shared<" + one_line(type) + ">(\"" + name + "\", \"" + one_line(type) + "\")";
  std::string text = at_namespace_scope(s, src.code, i)
                         ? "\n#define " + name + " (" + array + ")\n"  // a macro: the buffer is per worker
                         : one_line(type) + " (&" + name + ")[] = " + array + ";";
  const long lines = std::count(s.begin() + static_cast<long>(i), s.begin() + static_cast<long>(semicolon), '\n');
  if (text.front() == '\n') text.erase(0, 1), text.pop_back();
  text.append(static_cast<std::size_t>(lines), '\n');
  src.edits.push_back({i, semicolon + 1, text});
  return semicolon;
}

std::optional<std::size_t> static_shared(Source& src, std::size_t i) {
  const std::string& s = src.s;
  if (!src.word_at(i, "__shared__") || at_namespace_scope(s, src.code, i)) return std::nullopt;
  std::size_t statement = i;
  while (statement > 0 && !(src.code[statement - 1] &&
                            (s[statement - 1] == ';' || s[statement - 1] == '{' || s[statement - 1] == '}'))) {
    --statement;
  }
  while (statement < i && (!src.code[statement] || std::isspace(static_cast<unsigned char>(s[statement])))) {
    ++statement;  // past comments before the declaration
  }
  std::size_t semicolon = i;
  while (semicolon < s.size() && !(src.code[semicolon] && s[semicolon] == ';')) ++semicolon;
  if (semicolon == s.size()) fail(src.file, s, i, "__shared__ declaration without a ';'");
  std::string text = static_shared_declaration(s, statement, i, semicolon);
  if (text.empty()) return std::nullopt;  // a per-worker variable, as it is
  text.append(static_cast<std::size_t>(
                  std::count(s.begin() + static_cast<long>(statement), s.begin() + static_cast<long>(semicolon), '\n')),
              '\n');
  src.edits.push_back({statement, semicolon + 1, text});
  return semicolon;
}

std::optional<std::size_t> asm_statement(Source& src, std::size_t i) {
  const std::string& s = src.s;
  if (!src.word_at(i, "asm") && !src.word_at(i, "__asm__") && !src.word_at(i, "__asm")) return std::nullopt;
  // The tensor cores' PTX, carried out by the emulator (ptx.hpp).
  std::size_t open = i;
  while (open < s.size() && ident_char(s[open])) ++open;
  open = src.skip_space(open);
  while (src.word_at(open, "volatile") || src.word_at(open, "__volatile__") || src.word_at(open, "__volatile")) {
    while (open < s.size() && ident_char(s[open])) ++open;
    open = src.skip_space(open);
  }
  if (open >= s.size() || s[open] != '(') fail(src.file, s, i, "expected asm(\"...\" : outputs : inputs)");
  const std::size_t close = match_forward(s, src.code, open);
  if (close == std::string::npos) fail(src.file, s, open, "an asm statement's ( is not closed");
  src.edits.push_back({i, close, ptx_call(s, src.code, open, close)});
  return close - 1;
}

std::optional<std::size_t> volatile_note(Source& src, std::size_t i) {
  if (!src.word_at(i, "volatile")) return std::nullopt;
  // The emulator says so when such code runs in a kernel (note_volatile).
  const std::size_t at = volatile_note_position(src.s, src.code, i);
  if (at != std::string::npos) src.edits.push_back({at, at, " ::gpulab::emulated::note_volatile(__FILE__, __LINE__);"});
  return i;
}

std::optional<std::size_t> kernel_launch(Source& src, std::size_t i) {
  const std::string& s = src.s;
  const std::string& file = src.file;
  if (s.compare(i, 3, "<<<") != 0) return std::nullopt;
  const std::size_t start = kernel_start(s, src.code, i);
  if (start == std::string::npos) fail(file, s, i, "cannot find the kernel's name before <<<");
  int depth = 0;
  std::size_t close = std::string::npos;
  std::vector<std::size_t> commas;
  for (std::size_t j = i + 3; j + 2 < s.size(); ++j) {
    if (!src.code[j]) continue;
    if (s[j] == '(' || s[j] == '[' || s[j] == '{') ++depth;
    if (s[j] == ')' || s[j] == ']' || s[j] == '}') --depth;
    if (depth == 0 && s[j] == ',') commas.push_back(j);
    if (depth == 0 && s.compare(j, 3, ">>>") == 0) {
      close = j;
      break;
    }
  }
  if (close == std::string::npos) fail(file, s, i, "a launch's <<< has no >>>");
  const std::size_t open_args = src.skip_space(close + 3);
  if (open_args >= s.size() || s[open_args] != '(')
    fail(file, s, close, "a launch's >>> is not followed by (arguments)");
  const std::size_t args_end = match_forward(s, src.code, open_args);
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
  const bool no_arguments =
      std::all_of(inner.begin(), inner.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; });
  // The call of the kernel is inlined into the emulator's thread loops, as the kernel is; not a
  // launch inside a kernel (which the emulator refuses as it runs): a kernel that launches
  // itself would be inlined into itself.
  const bool in_kernel = std::any_of(src.kernel_bodies.begin(), src.kernel_bodies.end(),
                                     [&](const auto& body) { return start > body.first && start < body.second; });
  // The launch's body is a type of the file's own (arguments_once's template argument: a hash of
  // its path), so that the plain half of a learner's file finds its own launches' loops by it, not
  // another file's from a static function of the same name (lessons/run/two_halves.hpp).
  std::uint64_t file_tag = 14695981039346656037ull;  // FNV-1a
  for (const char c : src.file) file_tag = (file_tag ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  std::string text = "::gpulab::emulated::launch_kernel(\"" + one_line(kernel) +
                     "\", __FILE__, __LINE__, ::gpulab::emulated::arguments_once<" + std::to_string(file_tag) +
                     "ull>([&](const auto&... gpulab_arguments)" +
                     (in_kernel ? "" : " __attribute__((always_inline))") + " { " + kernel +
                     "(gpulab_arguments...); }" + (no_arguments ? "" : ", ") + inner + "), " + config + ")";
  // Lines kept: the newlines of what was between the pieces come after the call.
  const auto newlines = [](std::string_view t) { return std::count(t.begin(), t.end(), '\n'); };
  const long lost = newlines(std::string_view(s).substr(start, args_end - start)) - newlines(kernel) -
                    newlines(config) - newlines(args);
  text.append(static_cast<std::size_t>(std::max(0L, lost)), '\n');
  src.edits.push_back({start, args_end, text});
  return args_end - 1;
}

}  // namespace gpulab::emulated::jobs
