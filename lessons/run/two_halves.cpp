// A learner's .cu in two halves: see two_halves.hpp.
#include "run/two_halves.hpp"

#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "emulator/rewrite/rewrite_scan.hpp"
#include "run/cuda_build.hpp"

namespace fs = std::filesystem;

namespace gpulab::build {

namespace {

bool has_word(const std::string& text, const char* word) {
  return std::regex_search(text, std::regex(std::string("\\b") + word + "\\b"));
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
    const bool unnamed_namespace = std::regex_search(code, std::regex("\\bnamespace\\s*\\{"));
    // Each declaration's head: from after the last ';', '{' or '}' to its first '=', ';', '{',
    // '(' or '['. A variable's head ends at anything but '(' (a function's parameters).
    std::size_t start = 0;
    for (std::size_t i = 0; i < code.size(); ++i) {
      const char c = code[i];
      if (c != '=' && c != ';' && c != '{' && c != '}' && c != '(' && c != '[') continue;
      const std::string head = code.substr(start, i - start);
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
