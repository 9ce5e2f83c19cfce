# Helpers shared by every target of GPU Lab.

# Warnings as errors for our own code (C++ and CUDA, host and device passes).
# GCC 12 reports std::string concatenation at -O3 as overlapping memcpy (GCC bug 105329, a false
# positive), so -Wrestrict is off.
# LEARNER: for the exercise files as a learner gets them (half-written code, unused parameters):
# the warnings are shown but do not stop the build.
function(gpulab_warnings target)
  cmake_parse_arguments(ARG "LEARNER" "" "" ${ARGN})
  if(ARG_LEARNER)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter -Wno-restrict>
      $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-Wno-unused-parameter,-Wno-restrict>)
  else()
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Wno-restrict -Werror>
      $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings -Xcompiler=-Wall,-Wextra,-Wno-restrict,-Werror>)
  endif()
  # Error messages name files relative to the repository, not the build machine's path.
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fmacro-prefix-map=${PROJECT_SOURCE_DIR}/=>)
endfunction()

# A library of kernels: CPU functions (*.cpp) and kernel files (*.cu). Each kernel file builds
# twice from the same source: by nvcc for the GPU (with the CUDA toolkit) and as C++ against the
# emulator, through a generated one-line wrapper.
#   gpulab_add_kernels(gpulab_vector_add CPU vector_add_cpu.cpp CUDA vector_add.cu)
# LEARNER: warnings as for gpulab_warnings(... LEARNER).
function(gpulab_add_kernels name)
  cmake_parse_arguments(ARG "LEARNER" "" "CPU;CUDA" ${ARGN})
  add_library(${name} STATIC ${ARG_CPU})
  foreach(cu IN LISTS ARG_CUDA)
    get_filename_component(source ${cu} ABSOLUTE)
    get_filename_component(stem ${cu} NAME)
    set(wrapper ${CMAKE_CURRENT_BINARY_DIR}/emulated/${stem}.cpp)
    file(CONFIGURE OUTPUT ${wrapper} CONTENT "// Generated: ${cu} built for the emulator.\n#include \"${source}\"\n")
    target_sources(${name} PRIVATE ${wrapper})
    # (`#pragma unroll` is for nvcc; GCC ignores it.)
    set_source_files_properties(${wrapper} PROPERTIES COMPILE_DEFINITIONS "GPULAB_TARGET=emulated;GPULAB_TARGET_EMULATED=1"
                                COMPILE_OPTIONS -Wno-unknown-pragmas)
    if(GPULAB_HAVE_CUDA)
      target_sources(${name} PRIVATE ${cu})
      set_source_files_properties(${cu} PROPERTIES COMPILE_DEFINITIONS GPULAB_TARGET=gpu)
    endif()
  endforeach()
  target_link_libraries(${name} PUBLIC gpulab_device)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(ARG_LEARNER)
    gpulab_warnings(${name} LEARNER)
  else()
    gpulab_warnings(${name})
  endif()
endfunction()

# A lesson: its library (workload, variants, checks) and its standalone executable.
#   gpulab_add_lesson(01 vector_add SOURCES lesson.cpp KERNELS gpulab_vector_add)
function(gpulab_add_lesson number name)
  cmake_parse_arguments(ARG "" "" "SOURCES;KERNELS" ${ARGN})
  set(lib gpulab_lesson${number})
  add_library(${lib} STATIC ${ARG_SOURCES})
  # Every lesson runs its exercise as the variant `yours`.
  target_link_libraries(${lib} PUBLIC gpulab_harness ${ARG_KERNELS} gpulab_exercises)
  gpulab_warnings(${lib})
  set(exe lesson${number}_${name})
  add_executable(${exe} ${PROJECT_SOURCE_DIR}/lessons/common/lesson_main.cpp)
  target_compile_definitions(${exe} PRIVATE GPULAB_LESSON_ID="${number}")
  target_link_libraries(${exe} PRIVATE gpulab_lessons)
  gpulab_warnings(${exe})
  set_target_properties(${exe} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
  set_property(GLOBAL APPEND PROPERTY GPULAB_LESSON_LIBS ${lib})
endfunction()
