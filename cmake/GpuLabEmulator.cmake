# The emulator and the source rewrite as CMake targets — gpulab_emulator (the CUDA runtime and
# device language on the CPU: what every emulated build and every program gpulab_run builds
# links), gpulab_rewrite and its command gpulab_cuda_rewrite — defined once, for GPU Lab's own
# build (kernels/CMakeLists.txt) and for an outside project that includes cmake/GpuLab.cmake
# (gpulab_add_cuda_executable includes this file there on first use, into that project's build).
# With the error and launch descriptions it shares with the GPU side, it needs no CUDA toolkit.
include_guard(GLOBAL)
get_filename_component(gpulab_kernels "${CMAKE_CURRENT_LIST_DIR}/../kernels" ABSOLUTE)

find_package(Threads REQUIRED)
if(NOT TARGET Boost::context)
  set(Boost_USE_STATIC_LIBS ON)
  find_package(Boost 1.74 REQUIRED COMPONENTS context)
endif()
if(NOT TARGET PkgConfig::OPENBLAS)  # (the emulator's cuBLAS, emulator/include/cublas_v2.h)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(OPENBLAS REQUIRED IMPORTED_TARGET GLOBAL openblas)
endif()

add_library(gpulab_emulator STATIC
  ${gpulab_kernels}/base/device_info_text.cpp
  ${gpulab_kernels}/base/launch_description.cpp
  ${gpulab_kernels}/emulator/execution/instrumented_loops.cpp
  ${gpulab_kernels}/emulator/execution/launch.cpp
  ${gpulab_kernels}/emulator/execution/phases.cpp
  ${gpulab_kernels}/emulator/execution/scheduler.cpp
  ${gpulab_kernels}/emulator/execution/shared_memory.cpp
  ${gpulab_kernels}/emulator/execution/synchronisation.cpp
  ${gpulab_kernels}/emulator/language/device_assert.cpp
  ${gpulab_kernels}/emulator/language/ptx.cpp
  ${gpulab_kernels}/emulator/observers/check_reports.cpp
  ${gpulab_kernels}/emulator/observers/checker.cpp
  ${gpulab_kernels}/emulator/observers/global_records.cpp
  ${gpulab_kernels}/emulator/observers/memory_counter.cpp
  ${gpulab_kernels}/emulator/observers/observers.cpp
  ${gpulab_kernels}/emulator/observers/sanitizer_hooks.cpp
  ${gpulab_kernels}/emulator/observers/shared_steps.cpp
  ${gpulab_kernels}/emulator/observers/stream_order.cpp
  ${gpulab_kernels}/emulator/observers/upload_watch.cpp
  ${gpulab_kernels}/emulator/runtime/memory.cpp
  ${gpulab_kernels}/emulator/runtime/runtime_api.cpp
  ${gpulab_kernels}/emulator/runtime/runtime_memory.cpp
  ${gpulab_kernels}/emulator/runtime/runtime_streams.cpp)
target_include_directories(gpulab_emulator PUBLIC ${gpulab_kernels})
target_compile_features(gpulab_emulator PUBLIC cxx_std_20)
target_link_libraries(gpulab_emulator PUBLIC Boost::context Threads::Threads ${CMAKE_DL_LIBS})
set_target_properties(gpulab_emulator PROPERTIES POSITION_INDEPENDENT_CODE ON)
# Its thread-local state in static TLS (initial-exec: an offset from the thread pointer), also where
# the emulator is a shared library that Python's gpulab loads at run time; there every access a
# kernel makes read it through __tls_get_addr otherwise (18 % of an emulated vector add). A process
# has little static TLS for the libraries it loads (about 1.6 KB, shared): the emulator keeps its
# own small (its larger per-thread buffers are on the heap) — libgomp, loaded after it by
# matplotlib, needs 136 bytes of it. In executables the linker makes these accesses local anyway.
target_compile_options(gpulab_emulator PRIVATE -ftls-model=initial-exec)
gpulab_warnings(gpulab_emulator)

# The source rewrite every CUDA file goes through before it is compiled (emulator/rewrite/rewrite.hpp).
add_library(gpulab_rewrite STATIC ${gpulab_kernels}/emulator/rewrite/rewrite.cpp
  ${gpulab_kernels}/emulator/rewrite/rewrite_jobs.cpp ${gpulab_kernels}/emulator/rewrite/rewrite_scan.cpp
  ${gpulab_kernels}/emulator/rewrite/phased_kernel.cpp
            ${gpulab_kernels}/emulator/rewrite/launcher_dispatch.cpp ${gpulab_kernels}/emulator/rewrite/header_mirror.cpp)
target_include_directories(gpulab_rewrite PUBLIC ${gpulab_kernels})
target_compile_features(gpulab_rewrite PUBLIC cxx_std_20)
gpulab_warnings(gpulab_rewrite)
add_executable(gpulab_cuda_rewrite ${gpulab_kernels}/emulator/rewrite/cuda_rewrite_main.cpp)
target_link_libraries(gpulab_cuda_rewrite PRIVATE gpulab_rewrite)
gpulab_warnings(gpulab_cuda_rewrite)
# C++20 without GNU extensions, as GPU Lab's own build; and, in an outside project with no build
# type (which compiles at -O0), optimised: every emulated launch runs through this library (-O1:
# quick to build, as the test cmake_outside_project builds it from clean in every CI run).
set_target_properties(gpulab_emulator gpulab_rewrite gpulab_cuda_rewrite PROPERTIES CXX_EXTENSIONS OFF)
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  target_compile_options(gpulab_emulator PRIVATE -O1)
endif()
