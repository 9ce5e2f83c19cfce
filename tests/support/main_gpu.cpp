// main() of the GPU test executables: without a usable GPU they exit with 77, which CTest
// reports as "skipped" (SKIP_RETURN_CODE), neither passed nor failed. Listing the tests (CTest's
// discovery at build time) needs no GPU.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdio>

#include "common/device_info.hpp"

int main(int argc, char** argv) {
  Catch::Session session;
  if (const int rc = session.applyCommandLine(argc, argv); rc != 0) return rc;
  const auto& config = session.configData();
  const bool listing = config.listTests || config.listTestNamesOnly || config.listTags || config.listReporters;
  if (!listing) {
    const gpulab::DeviceInfo& device = gpulab::device_info();
    if (!device.available) {
      std::printf("SKIPPED: %s\n", device.reason.c_str());
      return 77;
    }
  }
  return session.run();
}
