// Catch2's implementation and the test executables' main(), compiled once for all of them: the
// header takes about 30 s to compile here. main_cpu.cpp and main_gpu.cpp only say which main.
//
// The GPU test executables: without a usable GPU they exit with 77, which CTest reports as
// "skipped" (SKIP_RETURN_CODE), neither passed nor failed. Listing the tests (CTest's discovery at
// build time) needs no GPU.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdio>

#include "base/device_info.hpp"
#include "support/catch_session.hpp"

namespace gpulab::test {

int run_tests(int argc, char** argv, bool needs_gpu) {
  Catch::Session session;
  if (const int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  const auto& config = session.configData();
  const bool listing = config.listTests || config.listTestNamesOnly || config.listTags || config.listReporters;
  if (needs_gpu && !listing) {
    const gpulab::DeviceInfo& device = gpulab::device_info();
    if (!device.available) {
      std::printf("SKIPPED: %s\n", device.reason.c_str());
      return 77;
    }
  }
  return session.run();
}

}  // namespace gpulab::test
