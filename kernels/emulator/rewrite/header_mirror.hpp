#pragma once
// A learner's own headers, rewritten for the emulator. nvcc compiles a kernel or a launch in an
// included header like one in the .cu; the emulated build must too. So before it compiles a
// learner's files, the build mirrors the learner's folders (each source's folder and each include
// folder): every header-like file goes through the source rewrite (launches, __shared__,
// warp-synchronous volatile: rewrite.hpp) into MIRROR/<its absolute path>, and the mirror's
// folders are searched first for "quoted" includes (-iquote MIRROR/<folder>), so the .cu — and a
// mirrored header, whose own folder is searched before any — finds the rewritten copy. A header the
// rewrite leaves alone is mirrored as a link to the original. Each copy starts with
// `#line 1 "original"`: messages name the learner's file. The walk is bounded (4 folders deep,
// 20000 files, 2000 headers); system folders (/usr, /opt) and the ones given to skip (GPU Lab's
// own) are not mirrored. gpulab_run mirrors into its build folder;
// gpulab_add_cuda_executable through `gpulab_cuda_rewrite --mirror` at each build, which rewrites
// only what changed, so an unchanged header recompiles nothing.
#include <filesystem>
#include <string>
#include <vector>

namespace gpulab::emulated {

// Where `folder`'s mirror lies under `mirror`.
std::filesystem::path mirrored(const std::filesystem::path& mirror, const std::filesystem::path& folder);

// Mirrors `folders` into `mirror`; returns "" or what was left out (a folder of too many headers),
// for the build log.
std::string mirror_learner_folders(const std::vector<std::filesystem::path>& folders,
                                   const std::filesystem::path& mirror, const std::vector<std::filesystem::path>& skip);

// A compiler's dependency list (-MD) written while compiling through the mirror, made to name the
// learner's originals instead; `compiled` is the rewritten source, `source` the learner's file.
std::string original_dependencies(std::string text, const std::filesystem::path& mirror, const std::string& compiled,
                                  const std::string& source);

}  // namespace gpulab::emulated
