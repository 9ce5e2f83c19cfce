// The scanner of rewrite_scan.hpp: it knows comments, literals and brackets, which is all a
// launch's syntax needs.
#include "emulator/rewrite/rewrite_scan.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace gpulab::emulated::scan {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Positions of the source that are code (not inside a comment or a literal).
std::vector<bool> code_mask(const std::string& s) {
  std::vector<bool> code(s.size(), true);
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    const char next = i + 1 < s.size() ? s[i + 1] : '\0';
    std::size_t end = i;
    if (c == '/' && next == '/') {
      end = s.find('\n', i);
      if (end == std::string::npos) end = s.size();
    } else if (c == '/' && next == '*') {
      end = s.find("*/", i + 2);
      end = end == std::string::npos ? s.size() : end + 2;
    } else if (c == 'R' && next == '"' &&
               (i == 0 || !ident_char(s[i - 1]) || s[i - 1] == '8' || s[i - 1] == 'u' || s[i - 1] == 'U' ||
                s[i - 1] == 'L')) {
      const std::size_t open = s.find('(', i + 2);
      if (open == std::string::npos) break;
      const std::string close = ")" + s.substr(i + 2, open - i - 2) + "\"";
      end = s.find(close, open);
      end = end == std::string::npos ? s.size() : end + close.size();
    } else if (c == '"' || (c == '\'' && (i == 0 || !ident_char(s[i - 1])))) {  // 1'000 is a digit separator
      end = i + 1;
      while (end < s.size() && s[end] != c && s[end] != '\n') end += s[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, s.size());
    } else {
      ++i;
      continue;
    }
    std::fill(code.begin() + static_cast<long>(i), code.begin() + static_cast<long>(end), false);
    i = end;
  }
  return code;
}

int line_of(const std::string& s, std::size_t pos) {
  return 1 + static_cast<int>(std::count(s.begin(), s.begin() + static_cast<long>(pos), '\n'));
}

[[noreturn]] void fail(const std::string& file, const std::string& s, std::size_t pos, const std::string& what) {
  throw std::invalid_argument(file + ":" + std::to_string(line_of(s, pos)) + ": " + what);
}

// The end of the bracketed group opening at `open` (one past its closing bracket), skipping
// what is not code.
std::size_t match_forward(const std::string& s, const std::vector<bool>& code, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (!code[i]) continue;
    if (s[i] == '(' || s[i] == '[' || s[i] == '{') ++depth;
    if (s[i] == ')' || s[i] == ']' || s[i] == '}') {
      if (--depth == 0) return i + 1;
    }
  }
  return std::string::npos;
}

// The start of the kernel expression that ends just before `end`: a name, maybe qualified
// (ns::kernel), maybe with template arguments (kernel<float, 4>), or a parenthesised expression.
std::size_t kernel_start(const std::string& s, const std::vector<bool>& code, std::size_t end) {
  std::size_t i = end;
  const auto skip_space = [&] {
    while (i > 0 && std::isspace(static_cast<unsigned char>(s[i - 1]))) --i;
  };
  skip_space();
  if (i > 0 && s[i - 1] == ')') {  // (expression)
    int depth = 0;
    while (i > 0) {
      --i;
      if (!code[i]) continue;
      if (s[i] == ')') ++depth;
      if (s[i] == '(' && --depth == 0) return i;
    }
    return std::string::npos;
  }
  for (;;) {
    if (i > 0 && s[i - 1] == '>') {  // template arguments
      int depth = 0;
      while (i > 0) {
        --i;
        if (!code[i]) continue;
        if (s[i] == '>') ++depth;
        if (s[i] == '<' && --depth == 0) break;
      }
      skip_space();
    }
    const std::size_t name_end = i;
    while (i > 0 && ident_char(s[i - 1])) --i;
    if (i == name_end) return std::string::npos;
    std::size_t before = i;
    while (before > 0 && std::isspace(static_cast<unsigned char>(s[before - 1]))) --before;
    if (before >= 2 && s[before - 1] == ':' && s[before - 2] == ':') {
      i = before - 2;
      skip_space();
      if (i == 0 || !(ident_char(s[i - 1]) || s[i - 1] == '>')) return i;  // ::kernel
      continue;
    }
    return i;
  }
}

std::string one_line(std::string_view text) {
  std::string out;
  bool space = false;
  for (const char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// The type of a declaration without __align__(n) or alignas(n) (the buffer is aligned anyway).
std::string without_alignment(std::string type) {
  for (const std::string word : {"__align__", "alignas"}) {
    for (std::size_t at; (at = type.find(word)) != std::string::npos;) {
      const std::size_t open = type.find('(', at), close = type.find(')', at);
      if (open == std::string::npos || close == std::string::npos) break;
      type.erase(at, close + 1 - at);
    }
  }
  return type;
}

// Whether position `at` is at namespace scope: no open brace before it, or only those of
// namespaces and extern "C".
bool at_namespace_scope(const std::string& s, const std::vector<bool>& code, std::size_t at) {
  int depth = 0;
  for (std::size_t i = at; i-- > 0;) {
    if (!code[i]) continue;
    if (s[i] == '}') ++depth;
    if (s[i] != '{') continue;
    if (depth > 0) {
      --depth;
      continue;
    }
    std::size_t head = i;  // the words before this brace, back to the last ; { or }
    while (head > 0 && !(code[head - 1] && (s[head - 1] == ';' || s[head - 1] == '{' || s[head - 1] == '}'))) --head;
    std::string words;  // the code among them (a comment may hold anything)
    for (std::size_t j = head; j < i; ++j) words += code[j] ? s[j] : ' ';
    const bool opens_namespace =
        words.find("namespace") != std::string::npos || words.find("extern \"C\"") != std::string::npos;
    if (!opens_namespace || words.find('(') != std::string::npos) return false;
  }
  return true;
}

// Splits at the commas that are not inside brackets or template arguments.
std::vector<std::string> split_declarators(const std::string& text) {
  std::vector<std::string> parts(1);
  int depth = 0;
  for (const char c : text) {
    if (c == '(' || c == '[' || c == '{' || c == '<') ++depth;
    if (c == ')' || c == ']' || c == '}' || c == '>') --depth;
    if (c == ',' && depth == 0) {
      parts.emplace_back();
      continue;
    }
    parts.back() += c;
  }
  return parts;
}

std::string trim(const std::string& t) {
  const std::size_t b = t.find_first_not_of(" \t\r\n"), e = t.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : t.substr(b, e + 1 - b);
}

namespace {

bool is_keyword(const std::string& w) {
  static const char* const words[] = {"const", "volatile", "unsigned", "signed", "int",  "long", "short",
                                      "char",  "float",    "double",   "bool",   "void", "auto", "__restrict__"};
  return std::find_if(std::begin(words), std::end(words), [&](const char* k) { return w == k; }) != std::end(words);
}

}  // namespace

// The name a parameter declaration gives ("" where it gives none): `const float* x` -> x,
// `void (*f)(int)` -> f, `int` and `const Shape&` -> "".
std::string parameter_name(std::string p) {
  if (const std::size_t eq = p.find('='); eq != std::string::npos) p.erase(eq);  // a default argument
  if (const std::size_t fp = p.find("(*"); fp != std::string::npos) {
    std::size_t b = fp + 2, e = b;
    while (e < p.size() && ident_char(p[e])) ++e;
    return p.substr(b, e - b);
  }
  std::string flat;  // without template arguments and array bounds
  int depth = 0;
  for (const char c : p) {
    if (c == '<' || c == '[') ++depth;
    if (depth == 0) flat += c;
    if (c == '>' || c == ']') --depth;
  }
  flat = trim(flat);
  std::size_t e = flat.size();
  if (e == 0 || !ident_char(flat[e - 1])) return "";
  std::size_t b = e;
  while (b > 0 && ident_char(flat[b - 1])) --b;
  const std::string name = flat.substr(b, e - b);
  std::size_t before = b;
  while (before > 0 && std::isspace(static_cast<unsigned char>(flat[before - 1]))) --before;
  if (before == 0 || is_keyword(name)) return "";
  const char c = flat[before - 1];
  if (c == ':' || c == ',') return "";  // std::size_t alone
  if (ident_char(c) || c == '*' || c == '&' || c == '>') return name;
  return "";
}

std::vector<Launcher> find_launchers(const std::string& s, const std::string& file) {
  const std::vector<bool> code = code_mask(s);
  std::vector<std::string> scopes;  // "ns:<name>" for a namespace, "other" for anything else
  std::vector<Launcher> found;
  std::size_t head = 0;  // where the words before the next brace start
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (!code[i]) continue;
    const char c = s[i];
    if (c == '#') {  // a preprocessor line: not part of any declaration
      while (i < s.size() && s[i] != '\n') i += (s[i] == '\\' && i + 1 < s.size()) ? 2 : 1;
      head = i;
      continue;
    }
    if (c == ';') {
      head = i + 1;
      continue;
    }
    if (c == '}') {
      if (!scopes.empty()) scopes.pop_back();
      head = i + 1;
      continue;
    }
    if (c != '{') continue;
    std::string words;
    for (std::size_t j = head; j < i; ++j) words += code[j] ? s[j] : ' ';
    words = trim(one_line(words));
    head = i + 1;
    const auto word = [&](const std::string& w) {
      for (std::size_t at = words.find(w); at != std::string::npos; at = words.find(w, at + 1)) {
        if ((at == 0 || !ident_char(words[at - 1])) &&
            (at + w.size() >= words.size() || !ident_char(words[at + w.size()])))
          return true;
      }
      return false;
    };
    if (word("namespace")) {
      std::string name = trim(words.substr(words.find("namespace") + 9));
      scopes.push_back("ns:" + name);
      continue;
    }
    const bool in_named_namespace =
        !scopes.empty() &&
        std::all_of(scopes.begin(), scopes.end(),
                    [](const std::string& sc) { return sc.rfind("ns:", 0) == 0 && sc.size() > 3; }) &&
        scopes.front().rfind("ns:gpulab", 0) == 0;
    scopes.push_back("other");
    if (!in_named_namespace || words.empty() || words.back() != ')') continue;
    const char* const not_launchers[] = {"__global__", "__device__", "__host__", "template", "inline",
                                         "static",     "constexpr",  "class",    "struct",   "union",
                                         "enum",       "operator",   "extern"};
    if (std::any_of(std::begin(not_launchers), std::end(not_launchers), word)) continue;
    if (words.find('=') != std::string::npos && words.find('(') > words.find('=')) continue;  // an initialiser
    {
      bool lone = false;  // a constructor's initialisers (X::X() : a_(1)) or a label: not a launcher
      for (std::size_t j = 0; j < words.size(); ++j) {
        if (words[j] != ':') continue;
        if (j + 1 < words.size() && words[j + 1] == ':') {
          ++j;
          continue;
        }
        lone = true;
      }
      if (lone) continue;
    }
    {
      int depth = 0;
      std::size_t open = std::string::npos;
      for (std::size_t j = words.size(); j-- > 0;) {
        if (words[j] == ')') ++depth;
        if (words[j] == '(' && --depth == 0) {
          open = j;
          break;
        }
      }
      if (open == std::string::npos) continue;
      std::size_t name_end = open;
      while (name_end > 0 && words[name_end - 1] == ' ') --name_end;
      std::size_t name_begin = name_end;
      while (name_begin > 0 && ident_char(words[name_begin - 1])) --name_begin;
      if (name_begin == name_end || (name_begin > 0 && words[name_begin - 1] == ':'))
        continue;  // a member's definition
      Launcher l;
      std::string space;
      for (const std::string& sc : scopes) {
        if (sc == "other") continue;
        space += (space.empty() ? "" : "::") + sc.substr(3);
      }
      l.space = space;
      l.result = trim(words.substr(0, name_begin));
      l.name = words.substr(name_begin, name_end - name_begin);
      l.parameters = words.substr(open + 1, words.size() - open - 2);
      l.line = line_of(s, i);
      if (l.result.empty()) continue;
      if (trim(l.parameters) != "" && trim(l.parameters) != "void") {
        int k = 0;
        for (const std::string& p : split_declarators(l.parameters)) {
          ++k;
          const std::string name = parameter_name(p);
          if (name.empty()) {
            throw std::invalid_argument(file + ":" + std::to_string(l.line) + ": parameter " + std::to_string(k) +
                                        " of " + l.name + " has no name; give each parameter of a launcher a name " +
                                        "(its backends' builds are called with them)");
          }
          l.arguments.push_back(name);
        }
      }
      found.push_back(std::move(l));
    }
  }
  return found;
}

}  // namespace gpulab::emulated::scan
