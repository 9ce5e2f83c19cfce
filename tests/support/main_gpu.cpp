// main() of the GPU test executables: skipped (exit 77) where no GPU is usable.
#include "support/catch_session.hpp"

int main(int argc, char** argv) { return gpulab::test::run_tests(argc, argv, true); }
