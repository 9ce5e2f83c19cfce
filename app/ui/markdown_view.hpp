#pragma once
// Draws parsed markdown (core/markdown) with the app's fonts: wrapped paragraphs with bold,
// italic and inline code, headings, lists, tables and code blocks.
#include <vector>

#include "core/markdown.hpp"
#include "ui/fonts.hpp"

namespace gpulab::app {

void draw_markdown(const std::vector<MarkdownBlock>& blocks, const Fonts& fonts);

// Source code with line numbers, monospaced.
void draw_code(const std::string& code, const Fonts& fonts, bool line_numbers);

}  // namespace gpulab::app
