#include "registry.hpp"

#include "01_vector_add/vector_add_lesson.hpp"
#include "02_thread_hierarchy/thread_hierarchy_lesson.hpp"
#include "03_matrix_add/matrix_add_lesson.hpp"
#include "04_sigmoid/sigmoid_lesson.hpp"
#include "05_matmul/matmul_lesson.hpp"
#include "06_conv/conv_lesson.hpp"
#include "07_tiny_network/tiny_network_lesson.hpp"
#include "08_streams/streams_lesson.hpp"
#include "09_mixed_precision/mixed_precision_lesson.hpp"
#include "10_multi_gpu/multi_gpu_lesson.hpp"

namespace gpulab {

const std::vector<const Lesson*>& all_lessons() {
  static const std::vector<const Lesson*> lessons = {&vector_add_lesson(),      &thread_hierarchy_lesson(),
                                                     &matrix_add_lesson(),      &sigmoid_lesson(),
                                                     &matmul_lesson(),          &conv_lesson(),
                                                     &tiny_network_lesson(),    &streams_lesson(),
                                                     &mixed_precision_lesson(), &multi_gpu_lesson()};
  return lessons;
}

const Lesson* find_lesson(std::string_view id) {
  for (const Lesson* lesson : all_lessons()) {
    if (lesson->id == id) return lesson;
  }
  return nullptr;
}

}  // namespace gpulab
