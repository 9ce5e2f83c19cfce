// gpulab_cuda_rewrite [--emulated] [--header] [--namespace gpu|emulated] INPUT.cu OUTPUT: the build's step
// before compiling a CUDA file for a target (see emulator/rewrite/rewrite.hpp).
// gpulab_cuda_rewrite --dispatch [--gpu] [--emulated | --needs WHAT] INPUT.cu OUTPUT.cpp: the one
// name of each of its launchers, calling the build of the thread's device backend.
// gpulab_cuda_rewrite --mirror MIRROR [--skip FOLDER]... FOLDER...: a learner's folders with their
// headers rewritten for the emulator, as gpulab_add_cuda_executable's build uses them
// (emulator/rewrite/header_mirror.hpp); rewrites only what changed.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "emulator/rewrite/header_mirror.hpp"
#include "emulator/rewrite/rewrite.hpp"

namespace {

int mirror(int argc, char** argv) {
  std::vector<std::filesystem::path> folders, skip;
  for (int i = 3; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--skip" && i + 1 < argc) {
      skip.emplace_back(argv[++i]);
    } else if (!arg.empty()) {
      folders.emplace_back(arg);
    }
  }
  std::cerr << gpulab::emulated::mirror_learner_folders(folders, argv[2], skip);
  return 0;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc >= 3 && std::string(argv[1]) == "--mirror") return mirror(argc, argv);
  gpulab::emulated::RewriteOptions options;
  options.emulated = false;
  gpulab::emulated::DispatchOptions dispatch;
  bool dispatching = false;
  std::string input, output;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--dispatch") {
      dispatching = true;
    } else if (arg == "--gpu") {
      dispatch.gpu = true;
    } else if (arg == "--needs" && i + 1 < argc) {
      dispatch.needs = argv[++i];
    } else if (arg == "--emulated") {
      options.emulated = true;
      dispatch.emulated = true;
    } else if (arg == "--header") {
      options.header = true;
    } else if (arg == "--namespace" && i + 1 < argc) {
      options.backend_namespace = argv[++i];
    } else if (input.empty()) {
      input = arg;
    } else if (output.empty()) {
      output = arg;
    } else {
      input.clear();
      break;
    }
  }
  if (input.empty() || output.empty()) {
    std::cerr << "usage: gpulab_cuda_rewrite [--emulated] [--header] [--namespace gpu|emulated] INPUT.cu OUTPUT\n"
                 "       gpulab_cuda_rewrite --dispatch [--gpu] [--emulated | --needs WHAT] INPUT.cu OUTPUT.cpp\n"
                 "       gpulab_cuda_rewrite --mirror MIRROR [--skip FOLDER]... FOLDER...\n";
    return 2;
  }
  std::string text;
  try {
    text = gpulab::emulated::read_source(input);
  } catch (const std::invalid_argument& e) {
    std::cerr << "gpulab_cuda_rewrite: " << e.what() << "\n";
    return 2;
  }
  const std::string result = dispatching ? gpulab::emulated::launcher_dispatch(text, input, dispatch)
                                         : gpulab::emulated::rewrite_cuda(text, input, options);
  const std::string temporary = output + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary);
    out << result;
    if (!out) {
      std::cerr << "gpulab_cuda_rewrite: cannot write " << output << "\n";
      return 1;
    }
  }
  return std::rename(temporary.c_str(), output.c_str()) == 0 ? 0 : 1;
} catch (const std::exception& e) {
  std::cerr << e.what() << "\n";
  return 1;
}
