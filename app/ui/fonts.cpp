// Finding and loading the fonts.
#include "ui/fonts.hpp"

#include <filesystem>

namespace gpulab::app {

namespace {

// Latin, the punctuation and symbols the lessons use (µ, ×, —, •, →, ≤, ≥, √, ∑), accents that
// combine (m̂), and the small letters and digits of formulas (Wᵀ, βᵗ, 10⁻⁵, xₙ).
const ImWchar kRanges[] = {0x0020, 0x00FF, 0x0300, 0x036F, 0x0370, 0x03FF, 0x1D00, 0x1DBF, 0x2000, 0x209F, 0x2190,
                           0x21FF, 0x2200, 0x23FF, 0x2500, 0x257F, 0x25A0, 0x25FF, 0x2700, 0x27BF, 0};

// Symbols Inter lacks (⌈ ⌉, ✓ ...) come from DejaVu Sans, merged into each font.
const char* const kFallback = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

ImFont* load(const char* path, float size, std::string& missing) {
  ImGuiIO& io = ImGui::GetIO();
  if (std::filesystem::exists(path)) {
    ImFontConfig config;
    config.OversampleH = 2;
    if (ImFont* font = io.Fonts->AddFontFromFileTTF(path, size, &config, kRanges)) {
      if (std::filesystem::exists(kFallback)) {
        ImFontConfig merge;
        merge.MergeMode = true;
        io.Fonts->AddFontFromFileTTF(kFallback, size, &merge, kRanges);
      }
      return font;
    }
  }
  missing += std::string(missing.empty() ? "" : ", ") + path;
  ImFontConfig fallback;
  fallback.SizePixels = size;
  return io.Fonts->AddFontDefault(&fallback);
}

}  // namespace

Fonts load_fonts(float scale) {
  const char* inter = "/usr/share/fonts/opentype/inter/Inter-Regular.otf";
  const char* inter_bold = "/usr/share/fonts/opentype/inter/Inter-SemiBold.otf";
  const char* inter_italic = "/usr/share/fonts/opentype/inter/Inter-Italic.otf";
  const char* mono = "/usr/share/fonts/truetype/jetbrains-mono/JetBrainsMono-Regular.ttf";
  std::string missing;
  Fonts fonts;
  const float base = 16.0f * scale;
  fonts.regular = load(inter, base, missing);  // the first font added is ImGui's default
  fonts.bold = load(inter_bold, base, missing);
  fonts.italic = load(inter_italic, base, missing);
  fonts.mono = load(mono, base * 0.92f, missing);
  fonts.heading[0] = load(inter_bold, base * 1.6f, missing);
  fonts.heading[1] = load(inter_bold, base * 1.3f, missing);
  fonts.heading[2] = load(inter_bold, base * 1.1f, missing);
  if (!missing.empty()) fonts.note = "fonts not found, ImGui's own used instead: " + missing;
  return fonts;
}

}  // namespace gpulab::app
