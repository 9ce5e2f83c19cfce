#pragma once
// Saves what OpenGL last rendered (the whole window) as a PNG.
#include <string>

namespace gpulab::app {

// Throws std::runtime_error when the file cannot be written.
void save_framebuffer_png(const std::string& path, int width, int height);

}  // namespace gpulab::app
