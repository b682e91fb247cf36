// main() of the GPU test programs: without a GPU they say so and exit 77,
// which ctest reports as skipped.
#define CATCH_CONFIG_RUNNER
#include <blocktune/detail/driver.hpp>

#include <catch2/catch.hpp>

#include <cstdio>

int main(int argc, char** argv) {
  if (!blocktune::Driver::available()) {
    std::printf("SKIPPED: no GPU (%s)\n", blocktune::Driver::unavailable_reason().c_str());
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
