// The mirror of a learner's folders with their headers rewritten: see header_mirror.hpp.
#include "emulator/rewrite/header_mirror.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <stdexcept>

#include "emulator/rewrite/rewrite.hpp"

namespace fs = std::filesystem;

namespace gpulab::emulated {

namespace {

// What a program can #include of its own: headers, and the .cu and .inl files textbooks include.
bool includable(const fs::path& file) {
  static constexpr std::array kinds{".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".inc", ".cu"};
  const std::string ext = file.extension().string();
  return std::any_of(kinds.begin(), kinds.end(), [&](const char* k) { return ext == k; });
}

bool inside(const fs::path& file, const fs::path& folder) {
  const auto mismatch = std::mismatch(folder.begin(), folder.end(), file.begin(), file.end());
  return mismatch.first == folder.end();
}

bool not_the_learners(const fs::path& folder, const std::vector<fs::path>& skip) {
  for (const char* root : {"/usr", "/opt", "/lib", "/etc", "/proc", "/sys"})
    if (inside(folder, root)) return true;
  return std::any_of(skip.begin(), skip.end(), [&](const fs::path& s) {
    std::error_code ec;
    return inside(folder, fs::weakly_canonical(s, ec));
  });
}

// A bound on what one build mirrors: a learner's folders are small; one of thousands of headers is
// a library checked out beside the program, whose headers are used as they are.
// The walk is bounded too: a program in a home folder must not walk the whole of it.
constexpr std::size_t kMostFiles = 2000;
constexpr std::size_t kMostEntries = 20000;
constexpr int kDeepest = 4;
constexpr std::uintmax_t kLargestFile = 4u << 20;

// The header rewritten, or "" when the rewrite adds nothing but its first lines.
std::string rewritten(const fs::path& file) {
  const std::string text = read_source(file.string());
  RewriteOptions options;
  options.header = true;
  std::string out;
  try {
    out = rewrite_cuda(text, file.string(), options);
  } catch (const std::invalid_argument&) {
    return {};  // compiled as it is, the compiler says what is wrong, on the learner's own lines
  }
  const bool unchanged = out.ends_with(text) && out.size() - text.size() < file.string().size() + 64;
  return unchanged ? std::string() : out;
}

// Writes `text` to `target` unless it holds it already (an unchanged header recompiles nothing).
void write_if_changed(const fs::path& target, const std::string& text) {
  std::error_code ec;
  if (!fs::is_symlink(target, ec) && fs::is_regular_file(target, ec) && fs::file_size(target, ec) == text.size()) {
    std::ifstream in(target, std::ios::binary);
    const std::string old{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (old == text) return;
  }
  fs::remove(target, ec);
  std::ofstream(target, std::ios::binary) << text;
}

void link_if_changed(const fs::path& target, const fs::path& original) {
  std::error_code ec;
  if (fs::is_symlink(target, ec) && fs::read_symlink(target, ec) == original) return;
  fs::remove(target, ec);
  fs::create_symlink(original, target, ec);
  if (ec) fs::copy_file(original, target, fs::copy_options::overwrite_existing, ec);
}

}  // namespace

fs::path mirrored(const fs::path& mirror, const fs::path& folder) {
  std::error_code ec;
  return mirror / fs::weakly_canonical(folder, ec).relative_path();
}

std::string mirror_learner_folders(const std::vector<fs::path>& folders, const fs::path& mirror,
                                   const std::vector<fs::path>& skip) {
  std::size_t files = 0, entries = 0;
  for (const fs::path& given : folders) {
    std::error_code ec;
    const fs::path folder = fs::weakly_canonical(given, ec);
    if (ec || !fs::is_directory(folder) || not_the_learners(folder, skip) || inside(folder, mirror)) continue;
    // The folder as given (`project/../include`) is also where -iquote MIRROR<folder> looks, and
    // the system resolves its `..` only through folders that exist: make them.
    if (given.is_absolute() && given != folder) fs::create_directories(mirror / given.relative_path(), ec);
    fs::recursive_directory_iterator walk(folder, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && walk != fs::recursive_directory_iterator(); walk.increment(ec)) {
      const fs::path& file = walk->path();
      if (++entries > kMostEntries) {
        return "gpulab: over " + std::to_string(kMostEntries) + " files in " + folder.string() +
               " and the folders before it; headers past them are used as they are (a launch in one of them "
               "will not build for the emulator)\n";
      }
      if (walk->is_directory(ec) &&
          (file.filename().string().starts_with(".") || inside(file, mirror) || walk.depth() >= kDeepest)) {
        walk.disable_recursion_pending();  // .git and the like, a mirror inside the folder, deep trees
        continue;
      }
      if (!walk->is_regular_file(ec) || !includable(file) || walk->file_size(ec) > kLargestFile) continue;
      if (++files > kMostFiles) {
        return "gpulab: over " + std::to_string(kMostFiles) + " headers in " + folder.string() +
               " and the folders before it; the rest are used as they are (a launch in one of them will not "
               "build for the emulator)\n";
      }
      const fs::path target = mirrored(mirror, folder) / fs::relative(file, folder);
      fs::create_directories(target.parent_path(), ec);
      const std::string text = rewritten(file);
      if (text.empty()) {
        link_if_changed(target, file);
      } else {
        write_if_changed(target, text);
      }
    }
  }
  return {};
}

std::string original_dependencies(std::string text, const fs::path& mirror, const std::string& compiled,
                                  const std::string& source) {
  auto replace_all = [&text](const std::string& from, const std::string& to) {
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  };
  replace_all(compiled, source);
  replace_all(mirror.string() + "/", "/");
  return text;
}

}  // namespace gpulab::emulated
