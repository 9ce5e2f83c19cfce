// Lesson 03: C = A + B on a 2-D grid; coalesced against transposed thread mappings, and the CPU's
// own version of the same lesson (row order against column order). Its workload is
// problems/matrix_add, which lesson 11 profiles too.
#include "problems/matrix_add/matrix_add_workload.hpp"

namespace gpulab {

const Lesson& matrix_add_lesson() {
  static const Lesson lesson = matrix_add_workload();
  return lesson;
}

}  // namespace gpulab
