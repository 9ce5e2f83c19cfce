#pragma once
// Runs the executable's Catch2 tests (catch_session.cpp); where `needs_gpu` and no GPU is usable,
// returns 77 (CTest: skipped) without running them.
namespace gpulab::test {
int run_tests(int argc, char** argv, bool needs_gpu);
}
