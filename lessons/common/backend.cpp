#include "common/backend.hpp"

namespace gpulab {

std::string_view to_string(Backend backend) {
  switch (backend) {
    case Backend::cpu:
      return "cpu";
    case Backend::gpu:
      return "gpu";
    case Backend::emulated:
      return "emulated";
  }
  return "?";
}

std::optional<Backend> parse_backend(std::string_view name) {
  for (Backend b : kAllBackends) {
    if (to_string(b) == name) return b;
  }
  return std::nullopt;
}

}  // namespace gpulab
