// Reading the framebuffer back and writing it with stb_image_write.
#include "ui/screenshot.hpp"

#include <GL/gl.h>
#include <stb/stb_image_write.h>

#include <stdexcept>
#include <vector>

namespace gpulab::app {

void save_framebuffer_png(const std::string& path, int width, int height) {
  if (width <= 0 || height <= 0)
    throw std::runtime_error("cannot save a " + std::to_string(width) + " x " + std::to_string(height) + " image");
  std::vector<unsigned char> pixels(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  // OpenGL's rows start at the bottom; PNG's at the top.
  stbi_flip_vertically_on_write(1);
  if (stbi_write_png(path.c_str(), width, height, 4, pixels.data(), width * 4) == 0) {
    throw std::runtime_error("cannot write " + path);
  }
}

}  // namespace gpulab::app
