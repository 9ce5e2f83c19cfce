// main() of the CPU and emulator test executables.
#include "support/catch_session.hpp"

int main(int argc, char** argv) { return gpulab::test::run_tests(argc, argv, false); }
