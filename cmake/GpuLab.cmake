# Helpers shared by every target of GPU Lab — and, for an outside project, the one file to
# include for gpulab_add_cuda_executable:
#   include(/path/to/gpulab/cmake/GpuLab.cmake)
#   gpulab_add_cuda_executable(saxpy saxpy.cu)   # saxpy_emulated always; saxpy where nvcc is
get_filename_component(GPULAB_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
list(APPEND CMAKE_MODULE_PATH ${CMAKE_CURRENT_LIST_DIR})
list(REMOVE_DUPLICATES CMAKE_MODULE_PATH)
# An outside project: the GPU build where nvcc is (GPU Lab's own CMakeLists.txt decides for itself).
if(NOT DEFINED GPULAB_HAVE_CUDA AND NOT PROJECT_NAME STREQUAL "gpulab")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    set(GPULAB_HAVE_CUDA ON)
  else()
    set(GPULAB_HAVE_CUDA OFF)
  endif()
endif()

# Code no one waits for — the tests' own code, the app's windows, the grader's and the command
# line's parsing and printing — built at -O1 in a release build: its templates (Catch2, JSON,
# CLI11, fmt) compile about twice as fast, while every kernel, CPU reference and check it calls
# stays at -O3 in its own library. (A target's options come after CMAKE_CXX_FLAGS_RELEASE's -O3,
# and the last -O wins.) gpulab_build_quickly(target) for a whole target, or with SOURCES f1 f2 ...
# for some of its files.
function(gpulab_build_quickly target)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  set(option $<$<AND:$<CONFIG:Release>,$<COMPILE_LANGUAGE:CXX>>:-O1>)
  if(ARG_SOURCES)
    set_property(SOURCE ${ARG_SOURCES} TARGET_DIRECTORY ${target} APPEND PROPERTY COMPILE_OPTIONS ${option})
  else()
    target_compile_options(${target} PRIVATE ${option})
  endif()
endfunction()

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
  # Error messages name files relative to the repository, not the build machine's path (GPU Lab's
  # root, also where an outside project builds the emulator).
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-fmacro-prefix-map=${GPULAB_ROOT}/=>
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-fmacro-prefix-map=${GPULAB_ROOT}/=>)
endfunction()

# The checked mode's instrumentation (kernels/emulator/observers/checker.hpp) for code built for the
# emulator: GCC calls the emulator's checks before every load and store and in place of every
# atomic (ThreadSanitizer's instrumentation, without its runtime: sanitizer_hooks.cpp stands in),
# and the line tables (-g1; DWARF 4, which addr2line reads right after a #line) let a report name
# the file and line of the access. Each access as the source writes it, as nvcc makes it, for the
# memory counts (emulator/observers/memory_counter.hpp): no vectorizer (it would merge scalar accesses that
# nvcc keeps apart), and no scalar replacement of aggregates (it would split a float4's one 16-byte
# load into four). Each kernel is inlined into the emulator's checked and fast thread loops
# (cuda_language.hpp), which position-independent code allows only where a definition cannot be
# replaced at load time: -fno-semantic-interposition.
set(GPULAB_CHECKED_FLAGS -g1 -gdwarf-4 -fsanitize=thread --param=tsan-instrument-func-entry-exit=0
    --param=tsan-distinguish-volatile=1 -fno-tree-vectorize -fno-tree-sra -fno-semantic-interposition)
# A learner's code (gpulab_run, gpulab_add_cuda_executable, the grader, Python, the exercises)
# also gets GCC's check of each index into an array of known size (UBSan's -fsanitize=bounds,
# again without its runtime: sanitizer_hooks.cpp), which the accesses' instrumentation cannot give
# for a kernel's local arrays (they live in the thread's own frame). GPU Lab's own kernels,
# known to stay in bounds, skip its cost.
set(GPULAB_LEARNER_CHECKED_FLAGS ${GPULAB_CHECKED_FLAGS} -fsanitize=bounds)

# A library of kernels: CPU functions (*.cpp) and kernel files (*.cu) in plain CUDA. Each kernel
# file builds twice from the same source: by nvcc for the GPU (with the CUDA toolkit) and as C++
# against the emulator's CUDA runtime (kernels/emulator/include). Before either compile, the
# source rewrite (kernels/emulator/rewrite/rewrite.hpp) moves the file's namespace gpulab::X to
# gpulab::gpu::X or gpulab::emulated::X, so both builds live in one program, and for the emulator
# turns kernel<<<...>>>(...) into a call of the emulator; `#line` keeps messages on the original.
# A third generated file gives each launcher its one name, gpulab::X::name, which calls the build
# of the device backend the calling thread has chosen (common/backend.hpp): code that calls a
# launcher is written once for every backend.
# GPU_ONLY files (tensor cores, copy engines, cuFFT) build for the GPU alone, each as FILE:WHAT it
# needs, which their launchers name when asked to run elsewhere.
#   gpulab_add_kernels(gpulab_vector_add CPU vector_add_cpu.cpp CUDA vector_add.cu)
#   gpulab_add_kernels(gpulab_mixed CPU mixed_cpu.cpp GPU_ONLY "wmma_gemm.cu:the tensor cores")
# LEARNER: warnings as for gpulab_warnings(... LEARNER).
function(gpulab_add_kernels name)
  cmake_parse_arguments(ARG "LEARNER" "" "CPU;CUDA;GPU_ONLY" ${ARGN})
  add_library(${name} STATIC ${ARG_CPU})
  set(learner)
  if(ARG_LEARNER)
    set(learner LEARNER)
  endif()
  set(emulated_sources)
  set(dispatch_sources)
  foreach(entry IN LISTS ARG_CUDA ARG_GPU_ONLY)
    set(needs)
    set(cu ${entry})
    set(dispatched ON)
    if(entry IN_LIST ARG_GPU_ONLY)
      string(REPLACE ":" ";" parts "${entry}")
      list(GET parts 0 cu)
      list(LENGTH parts count)
      if(count EQUAL 2)
        list(GET parts 1 needs)
      else()
        # Not yet one name: its launchers are gpulab::gpu::X::name (streams' classes, cuFFT).
        set(dispatched OFF)
        set(needs none)
      endif()
    endif()
    get_filename_component(source ${cu} ABSOLUTE)
    get_filename_component(stem ${cu} NAME)
    set(dispatch_flags)
    if(NOT needs)
      set(emulated ${CMAKE_CURRENT_BINARY_DIR}/emulated/${stem}.cpp)
      add_custom_command(OUTPUT ${emulated}
        COMMAND gpulab_cuda_rewrite --emulated --namespace emulated ${source} ${emulated}
        DEPENDS ${source} gpulab_cuda_rewrite
        COMMENT "Rewriting ${stem} for the emulator" VERBATIM)
      list(APPEND emulated_sources ${emulated})
      list(APPEND dispatch_flags --emulated)
    else()
      list(APPEND dispatch_flags --needs ${needs})
    endif()
    if(GPULAB_HAVE_CUDA)
      set(gpu ${CMAKE_CURRENT_BINARY_DIR}/gpu/${stem})
      add_custom_command(OUTPUT ${gpu}
        COMMAND gpulab_cuda_rewrite --namespace gpu ${source} ${gpu}
        DEPENDS ${source} gpulab_cuda_rewrite
        COMMENT "Rewriting ${stem} for the GPU build" VERBATIM)
      target_sources(${name} PRIVATE ${gpu})
      list(APPEND dispatch_flags --gpu)
    endif()
    if(NOT dispatched)
      continue()
    endif()
    get_filename_component(stem_we ${cu} NAME_WE)
    set(dispatch ${CMAKE_CURRENT_BINARY_DIR}/dispatch/${stem_we}_launchers.cpp)
    add_custom_command(OUTPUT ${dispatch}
      COMMAND gpulab_cuda_rewrite --dispatch ${dispatch_flags} ${source} ${dispatch}
      DEPENDS ${source} gpulab_cuda_rewrite
      COMMENT "The launchers of ${stem}, one name each" VERBATIM)
    list(APPEND dispatch_sources ${dispatch})
  endforeach()
  target_sources(${name} PRIVATE ${dispatch_sources})
  if(emulated_sources)
    # The folder's own .cuh headers (device functions, inline PTX), rewritten as its .cu files are
    # and found first: kernels/mixed/mma_fragments.cuh is included as "mixed/mma_fragments.cuh".
    get_filename_component(folder ${CMAKE_CURRENT_SOURCE_DIR} NAME)
    set(header_mirror ${CMAKE_CURRENT_BINARY_DIR}/emulated_headers)
    file(GLOB cuda_headers CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cuh)
    set(emulated_headers)
    foreach(header IN LISTS cuda_headers)
      get_filename_component(header_name ${header} NAME)
      set(rewritten ${header_mirror}/${folder}/${header_name})
      add_custom_command(OUTPUT ${rewritten}
        COMMAND gpulab_cuda_rewrite --emulated --header ${header} ${rewritten}
        DEPENDS ${header} gpulab_cuda_rewrite
        COMMENT "Rewriting ${folder}/${header_name} for the emulator" VERBATIM)
      list(APPEND emulated_headers ${rewritten})
    endforeach()
    # Its own object library: the emulator's include folder first and the CUDA toolkit's not at
    # all, so <cuda_runtime.h> is the emulator's.
    add_library(${name}_emulated OBJECT ${emulated_sources} ${emulated_headers})
    target_include_directories(${name}_emulated PRIVATE ${PROJECT_SOURCE_DIR}/kernels/emulator/include
                               ${header_mirror} ${header_mirror}/${folder}
                               ${PROJECT_SOURCE_DIR}/kernels ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
    # (`#pragma unroll` is for nvcc; GCC ignores it.)
    set(checked_flags ${GPULAB_CHECKED_FLAGS})
    if(ARG_LEARNER)
      set(checked_flags ${GPULAB_LEARNER_CHECKED_FLAGS})
    endif()
    target_compile_options(${name}_emulated PRIVATE -Wno-unknown-pragmas ${checked_flags})
    set_target_properties(${name}_emulated PROPERTIES POSITION_INDEPENDENT_CODE ON)
    gpulab_warnings(${name}_emulated ${learner})
    target_sources(${name} PRIVATE $<TARGET_OBJECTS:${name}_emulated>)
  endif()
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC gpulab_device)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  gpulab_warnings(${name} ${learner})
endfunction()

# A GPU_ONLY kernel library of Hopper's own instructions (wgmma, TMA: sm_90a, the "a" marking
# features of that architecture alone): built for 90a wherever the architecture list has 90; other
# GPUs get empty kernels, which its launchers never start.
function(gpulab_hopper_architectures target)
  if(NOT GPULAB_HAVE_CUDA)
    return()
  endif()
  set(architectures)
  foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
    if(arch MATCHES "^90(-real|-virtual)?$")
      string(REPLACE "90" "90a" arch "${arch}")
    endif()
    list(APPEND architectures ${arch})
  endforeach()
  set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES "${architectures}")
endfunction()

# An ordinary CUDA program (main, cudaMalloc, kernel<<<...>>>), in one file or several, built for
# the GPU as NAME (with the CUDA toolkit) and for GPU Lab's emulator as NAME_emulated (always): the
# same sources run on a machine without a GPU, and in CI. Each .cu is rewritten for the emulator
# and runs in checked mode; .cpp and .c files are host code, compiled as they are.
#   gpulab_add_cuda_executable(saxpy saxpy.cu)
#   gpulab_add_cuda_executable(histogram main.cpp histogram64.cu histogram256.cu)
function(gpulab_add_cuda_executable name)
  if(NOT TARGET gpulab_emulator)  # an outside project: the emulator builds into its build folder
    include(${GPULAB_ROOT}/cmake/GpuLabEmulator.cmake)
  endif()
  set(emulated_sources)
  set(source_dirs)
  foreach(source IN LISTS ARGN)
    get_filename_component(source ${source} ABSOLUTE)
    get_filename_component(source_dir ${source} DIRECTORY)
    list(APPEND source_dirs ${source_dir})
    get_filename_component(ext ${source} LAST_EXT)
    if(NOT ext STREQUAL ".cu")
      list(APPEND emulated_sources ${source})
      continue()
    endif()
    get_filename_component(stem ${source} NAME_WE)
    set(emulated ${CMAKE_CURRENT_BINARY_DIR}/${name}_emulated.sources/${stem}.cu.cpp)
    add_custom_command(OUTPUT ${emulated}
      COMMAND gpulab_cuda_rewrite --emulated ${source} ${emulated}
      DEPENDS ${source} gpulab_cuda_rewrite
      COMMENT "Rewriting ${stem}.cu of ${name} for the emulator" VERBATIM)
    list(APPEND emulated_sources ${emulated})
    # Checked mode for the CUDA files only: host code runs as it would under nvcc.
    set_source_files_properties(${emulated} PROPERTIES COMPILE_OPTIONS "${GPULAB_LEARNER_CHECKED_FLAGS}")
  endforeach()
  list(REMOVE_DUPLICATES source_dirs)
  add_executable(${name}_emulated ${emulated_sources})
  if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)  # (no build type: -O0, and the kernels crawl)
    target_compile_options(${name}_emulated PRIVATE -O1)
  endif()
  target_include_directories(${name}_emulated PRIVATE ${GPULAB_ROOT}/kernels/emulator/include ${GPULAB_ROOT}/kernels)
  # (-Wno-volatile: `s[t] += ...` through a volatile pointer is deprecated C++20 but common CUDA.)
  target_compile_options(${name}_emulated PRIVATE -Wno-unknown-pragmas -Wno-volatile)
  # The learner's headers, rewritten at each build into a mirror searched first for "quoted"
  # includes (kernels/emulator/rewrite/header_mirror.hpp): the sources' folders and every include folder
  # the target has, those set after this call too.
  set(mirror ${CMAKE_CURRENT_BINARY_DIR}/${name}_emulated.sources/mirror)
  set(include_dirs "$<TARGET_PROPERTY:${name}_emulated,INCLUDE_DIRECTORIES>")
  add_custom_target(${name}_emulated_headers
    COMMAND gpulab_cuda_rewrite --mirror ${mirror} --skip ${GPULAB_ROOT}/kernels ${source_dirs} ${include_dirs}
    COMMENT "Rewriting the headers of ${name} for the emulator" COMMAND_EXPAND_LISTS VERBATIM)
  add_dependencies(${name}_emulated ${name}_emulated_headers)
  foreach(dir IN LISTS source_dirs)
    target_compile_options(${name}_emulated PRIVATE -iquote${mirror}${dir} -iquote${dir})
  endforeach()
  target_compile_options(${name}_emulated PRIVATE "-iquote${mirror}$<JOIN:${include_dirs},;-iquote${mirror}>")
  # (OpenBLAS: the emulator's cuBLAS, emulator/include/cublas_v2.h.)
  target_link_libraries(${name}_emulated PRIVATE gpulab_emulator PkgConfig::OPENBLAS)
  if(GPULAB_HAVE_CUDA)
    add_executable(${name} ${ARGN})
    set_target_properties(${name} PROPERTIES CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
    if(NOT CMAKE_CUDA_STANDARD)  # (an outside project's: C++17, which every CUDA 12 and 13 nvcc takes)
      set_target_properties(${name} PROPERTIES CUDA_STANDARD 17 CXX_STANDARD 17)
    endif()
  endif()
endfunction()

# A lesson: its folder lessons/NN_NAME/ (every .cpp there but the GPU_ONLY ones is its library:
# workload, variants, checks; it defines `const Lesson& NAME_lesson()`), its standalone executable
# lessonNN_NAME, and its place in the registry (in the order of these lines). GPU_ONLY files
# (FILE:WHAT it needs) hold runs that only a GPU can do; built like a kernel library's, their
# functions say what they need where there is no GPU (see gpulab_add_kernels).
#   gpulab_add_lesson(01 vector_add KERNELS gpulab_vector_add)
function(gpulab_add_lesson number name)
  cmake_parse_arguments(ARG "" "" "KERNELS;GPU_ONLY" ${ARGN})
  set(lib gpulab_lesson${number})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${number}_${name}/*.cpp)
  foreach(entry IN LISTS ARG_GPU_ONLY)
    string(REPLACE ":" ";" parts "${entry}")
    list(GET parts 0 gpu_file)
    list(REMOVE_ITEM sources ${CMAKE_CURRENT_SOURCE_DIR}/${gpu_file})
  endforeach()
  add_library(${lib} STATIC ${sources})
  if(ARG_GPU_ONLY)
    gpulab_add_kernels(${lib}_gpu GPU_ONLY ${ARG_GPU_ONLY})
    target_link_libraries(${lib}_gpu PUBLIC gpulab_harness ${ARG_KERNELS} PRIVATE fmt::fmt)
    target_link_libraries(${lib} PUBLIC ${lib}_gpu)
  endif()
  target_link_libraries(${lib} PUBLIC gpulab_harness ${ARG_KERNELS})
  gpulab_warnings(${lib})
  set(exe lesson${number}_${name})
  # The executable is main() (gpulab_lesson_main, compiled once for every lesson) and which lesson
  # it is: one line of its own.
  set(id_source ${CMAKE_CURRENT_BINARY_DIR}/generated/${exe}_id.cpp)
  file(CONFIGURE OUTPUT ${id_source} CONTENT "extern const char* const gpulab_lesson_id = \"${number}\";\n")
  add_executable(${exe} ${id_source})
  target_link_libraries(${exe} PRIVATE gpulab_lesson_main gpulab_lessons)
  gpulab_warnings(${exe})
  set_target_properties(${exe} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin)
  set_property(GLOBAL APPEND PROPERTY GPULAB_LESSON_LIBS ${lib})
  set_property(GLOBAL APPEND PROPERTY GPULAB_LESSON_NAMES ${name})
  set_property(GLOBAL APPEND PROPERTY GPULAB_LESSON_NUMBERS ${number})
  # The lesson's own kernels: the folder of its first kernel library (gpulab_X: kernels/X/), which
  # the Code view shows.
  set(kernel_folder "")
  if(ARG_KERNELS)
    list(GET ARG_KERNELS 0 first)
    string(REGEX REPLACE "^gpulab_" "" folder "${first}")
    if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/kernels/${folder})
      set(kernel_folder "kernels/${folder}")
    endif()
  endif()
  set_property(GLOBAL APPEND PROPERTY GPULAB_LESSON_KERNEL_FOLDERS "${kernel_folder}")
  get_property(part GLOBAL PROPERTY GPULAB_COURSE_PART)
  set_property(GLOBAL APPEND PROPERTY GPULAB_LESSON_PARTS "${part}")
endfunction()

# The part of the course the gpulab_add_lesson lines after it belong to ("Parallel patterns"):
# the app's list and the README's table head each part with it.
function(gpulab_course_part title)
  set_property(GLOBAL PROPERTY GPULAB_COURSE_PART "${title}")
endfunction()
