#pragma once
// GPU Lab's version and the commit it was built from (written by the build, cmake/version.cmake).
#include <string>

namespace gpulab {
std::string version();
std::string commit();  // "3f2a9c1", "3f2a9c1-dirty", or "unknown" outside a git checkout
}  // namespace gpulab
