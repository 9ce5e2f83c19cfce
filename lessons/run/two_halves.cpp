// A learner's .cu in two halves: see two_halves.hpp.
#include "run/two_halves.hpp"

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>

#include "emulator/rewrite/rewrite_scan.hpp"
#include "run/cuda_build.hpp"

namespace fs = std::filesystem;

namespace gpulab::build {

namespace {

// Whether `word` stands in `text` as a word of its own (not inside an identifier).
bool has_word(std::string_view text, std::string_view word) {
  for (std::size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const std::size_t end = at + word.size();
    if ((at == 0 || !emulated::scan::ident_char(text[at - 1])) &&
        (end == text.size() || !emulated::scan::ident_char(text[end]))) {
      return true;
    }
  }
  return false;
}

// Whether `code` opens an unnamed namespace: `namespace` then, past spaces, `{`.
bool has_unnamed_namespace(std::string_view code) {
  for (std::size_t at = code.find("namespace"); at != std::string_view::npos; at = code.find("namespace", at + 1)) {
    if (at > 0 && emulated::scan::ident_char(code[at - 1])) continue;
    std::size_t next = at + 9;
    while (next < code.size() && std::isspace(static_cast<unsigned char>(code[next]))) ++next;
    if (next < code.size() && code[next] == '{') return true;
  }
  return false;
}

// The code of `source` with comments and literals blanked.
std::string code_only(const std::string& source) {
  const std::vector<bool> code = emulated::scan::code_mask(source);
  std::string out = source;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!code[i] && out[i] != '\n') out[i] = ' ';
  }
  return out;
}

}  // namespace

std::string one_piece_reason(const std::vector<std::string>& sources) {
  for (const std::string& source : sources) {
    const std::string code = code_only(source);
    if (has_word(code, "cudaLaunchKernel") || has_word(code, "cudaLaunchCooperativeKernel")) {
      return "a kernel launched through a pointer (cudaLaunchKernel)";
    }
    const bool unnamed_namespace = has_unnamed_namespace(code);
    // Each declaration's head: from after the last ';', '{' or '}' to its first '=', ';', '{',
    // '(' or '['. A variable's head ends at anything but '(' (a function's parameters).
    std::size_t start = 0;
    for (std::size_t i = 0; i < code.size(); ++i) {
      const char c = code[i];
      if (c != '=' && c != ';' && c != '{' && c != '}' && c != '(' && c != '[') continue;
      const std::string_view head = std::string_view(code).substr(start, i - start);
      const bool device_variable =
          c != '(' && (has_word(head, "__device__") || has_word(head, "__constant__") || has_word(head, "__managed__"));
      if (device_variable && (has_word(head, "static") || unnamed_namespace)) {
        return "a __device__, __constant__ or __managed__ variable of its file's own (static, or in an unnamed "
               "namespace)";
      }
      // Past what follows the head up to the declaration's end: its initialiser, its dimensions or
      // its parameters and body are no head of their own until the next ';', '{' or '}'.
      if (c == ';' || c == '{' || c == '}') {
        start = i + 1;
      } else {
        while (i + 1 < code.size() && code[i + 1] != ';' && code[i + 1] != '{' && code[i + 1] != '}') ++i;
        start = i + 1;
      }
    }
  }
  return "";
}

bool join_instrumented_halves(const std::vector<fs::path>& objects, const fs::path& work, std::string& log) {
  // Every function the instrumented halves define, renamed in all of them (so that one file's
  // kernel calling another file's __device__ function calls its instrumented copy), with the
  // signatures of the groups the compiler keeps one copy of (inline functions, templates): each
  // half keeps its own. Their data, weak: the plain half's definition is the one.
  std::set<std::string> functions;
  std::vector<std::vector<std::string>> data(objects.size());
  for (std::size_t i = 0; i < objects.size(); ++i) {
    std::string listing;
    if (run_logged("nm --defined-only -P " + shell_quote(objects[i].string()), listing) != 0) {
      log += listing;
      return false;
    }
    std::istringstream lines(listing);
    std::string name, type, rest;
    while (lines >> name >> type && std::getline(lines, rest)) {
      if (type == "T" || type == "W" || type == "n") functions.insert(name);
      if (type == "B" || type == "D" || type == "R" || type == "C" || type == "G" || type == "S")
        data[i].push_back(name);
    }
  }
  const fs::path renamed = work / "instrumented-functions.txt";
  {
    std::ofstream out(renamed, std::ios::binary);
    for (const std::string& f : functions) out << f << " gpulab_instrumented_" << f << "\n";
  }
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const fs::path weakened = work / ("instrumented-data-" + std::to_string(i) + ".txt");
    {
      std::ofstream out(weakened, std::ios::binary);
      for (const std::string& d : data[i]) out << d << "\n";
    }
    // (objcopy fails, saying nothing, on an empty list of symbols to weaken.)
    const std::string command = "objcopy --redefine-syms=" + shell_quote(renamed.string()) +
                                (data[i].empty() ? "" : " --weaken-symbols=" + shell_quote(weakened.string())) +
                                " --remove-section='.init_array*' --remove-section='.rela.init_array*' " +
                                shell_quote(objects[i].string());
    if (run_logged(command, log) != 0) {
      log += "could not join the two halves of the program: " + command + " failed\n";
      return false;
    }
  }
  return true;
}

}  // namespace gpulab::build
