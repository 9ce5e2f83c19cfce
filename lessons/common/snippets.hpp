#pragma once
// Doc snippets: a lesson's text shows real code from the kernels, never a copy that drifts.
//
// In a source file:        // [snippet:add_blocks]  ...code...  // [/snippet]
// In a lesson's markdown:  <!-- snippet: kernels/vector_add/vector_add.cu add_blocks -->
//                          followed by a fenced code block holding exactly that code.
// The tests check every such block against its source, and the app can render from the source.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpulab {

// The lines strictly between the two markers, or nullopt when NAME is not marked in the source.
std::optional<std::string> extract_snippet(std::string_view source, std::string_view name);

struct SnippetUse {
  std::string path;  // relative to the repository
  std::string name;
  std::string code;  // the fenced block that follows the comment in the markdown
};

std::vector<SnippetUse> snippet_uses(std::string_view markdown);

}  // namespace gpulab
