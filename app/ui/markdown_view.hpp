#pragma once
// Draws parsed markdown (core/markdown) with the app's fonts: wrapped paragraphs with bold,
// italic and inline code, headings, lists, tables and code blocks.
#include <vector>

#include "core/markdown.hpp"
#include "ui/fonts.hpp"

namespace gpulab::app {

// With `hints_shown`, an exercise's hints (hint_numbers) past that many stay hidden behind a
// "Show hint N" button for the next one; pressing it counts up.
void draw_markdown(const std::vector<MarkdownBlock>& blocks, const Fonts& fonts, int* hints_shown = nullptr);

// Source code with line numbers, monospaced.
void draw_code(const std::string& code, const Fonts& fonts, bool line_numbers);

}  // namespace gpulab::app
