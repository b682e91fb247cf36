#include <blocktune/detail/device_query.hpp>
#include <blocktune/detail/device.hpp>
#include <blocktune/detail/driver.hpp>

#include <catch2/catch.hpp>

using namespace blocktune;

TEST_CASE("every documented architecture has a profile with consistent facts", "[device]") {
  const std::vector<std::string> expected = {"sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"};
  CHECK(known_architectures() == expected);
  for (const std::string& arch : expected) {
    INFO(arch);
    const DeviceInfo d = require_arch_profile(arch);
    CHECK(d.arch() == arch);
    CHECK(d.is_profile());
    CHECK(d.sm_count > 0);
    CHECK(d.max_threads_per_block == 1024);
    CHECK(d.max_threads_per_sm % d.warp_size == 0);
    CHECK(d.shared_per_block == 48 * 1024);
    CHECK(d.shared_per_block_optin <= d.shared_per_sm);
    CHECK(d.registers_per_sm == 65536);
    CHECK(d.reserved_shared_per_block == (d.cc_major >= 8 ? 1024 : 0));
  }
}

TEST_CASE("the sm_90 profile holds the H100's per-SM facts", "[device]") {
  const DeviceInfo h100 = require_arch_profile("sm_90");
  CHECK(h100.sm_count == 132);
  CHECK(h100.shared_per_sm == 228 * 1024);
  CHECK(h100.shared_per_block_optin == 227 * 1024);
  CHECK(h100.max_threads_per_sm == 2048);
  CHECK(h100.max_blocks_per_sm == 32);
  CHECK(h100.l2_bytes == 50 * 1024 * 1024);
  CHECK(require_arch_profile("sm_86").max_blocks_per_sm == 16);
  CHECK(require_arch_profile("sm_89").max_blocks_per_sm == 24);
  CHECK(require_arch_profile("sm_120").max_threads_per_sm == 1536);
}

TEST_CASE("architectures are accepted in several spellings", "[device]") {
  for (const char* spelling : {"sm_90", "90", "9.0", "compute_90"}) CHECK(arch_profile(spelling)->cc_major == 9);
  CHECK(arch_profile("sm_120")->cc_major == 12);
  CHECK(arch_profile("10.0")->cc_major == 10);
  CHECK_FALSE(arch_profile("sm_91"));
  CHECK(arch_profile("compute_90")->cc_major == 9);
  CHECK_FALSE(arch_profile("sm_90a"));  // profiles are for base architectures
  CHECK_FALSE(arch_profile("banana"));
  CHECK_FALSE(arch_profile(""));
  CHECK_THROWS_WITH(require_arch_profile("sm_91"), Catch::Contains("unknown architecture 'sm_91'") && Catch::Contains("sm_90"));
}

TEST_CASE("without a driver every GPU call says why, and nothing crashes", "[device][nogpu]") {
  if (Driver::available()) {
    SUCCEED("a GPU is present: the GPU tests cover this machine");
    return;
  }
  CHECK_FALSE(Driver::unavailable_reason().empty());
  CHECK_THROWS_AS(Driver::get(), GpuUnavailable);
  CHECK_THROWS_AS(list_devices(), GpuUnavailable);
  CHECK_THROWS_WITH(query_device(0), Catch::Contains("libcuda.so.1") || Catch::Contains("driver"));
}
