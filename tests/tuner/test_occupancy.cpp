#include <blocktune/occupancy.hpp>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <fstream>
#include <sstream>

using namespace blocktune;

TEST_CASE("a 32-register kernel on sm_90 gives the blocks per SM the runtime gave on the H100", "[occupancy]") {
  // Field notes: block sizes 64..1024 gave 32,16,10,8,5,4,2,2 blocks per SM.
  const DeviceInfo h100 = require_arch_profile("sm_90");
  const std::vector<std::pair<int, int>> expected = {{64, 32}, {128, 16}, {192, 10}, {256, 8}, {384, 5}, {512, 4}, {768, 2}, {1024, 2}};
  for (const auto& [block, blocks] : expected) {
    INFO("block " << block);
    CHECK(compute_occupancy(h100, {.block_threads = block, .registers = 32}).blocks_per_sm == blocks);
  }
}

TEST_CASE("the limiting factor is named in words", "[occupancy]") {
  const DeviceInfo h100 = require_arch_profile("sm_90");
  CHECK(compute_occupancy(h100, {.block_threads = 32, .registers = 16}).limiting_factor() == "blocks");
  // Limits that tie are all named: 64 threads x 32 registers hit 32 blocks three ways.
  CHECK(compute_occupancy(h100, {.block_threads = 64, .registers = 32}).limiting_factor() == "registers and warps and blocks");
  CHECK(compute_occupancy(h100, {.block_threads = 256, .registers = 128}).limiting_factor() == "registers");
  const Occupancy smem = compute_occupancy(h100, {.block_threads = 128, .registers = 32, .dynamic_smem = 100 * 1024, .carveout = 100});
  CHECK(smem.blocks_per_sm == 2);
  CHECK(smem.limiting_factor() == "shared memory");
  CHECK(compute_occupancy(h100, {.block_threads = 1024, .registers = 16}).limiting_factor() == "warps");
}

TEST_CASE("impossible launches have zero occupancy and a reason", "[occupancy]") {
  const DeviceInfo h100 = require_arch_profile("sm_90");
  const Occupancy too_big = compute_occupancy(h100, {.block_threads = 2048, .registers = 16});
  CHECK(too_big.blocks_per_sm == 0);
  CHECK_THAT(too_big.invalid, Catch::Contains("2048 threads"));
  const Occupancy too_many_registers = compute_occupancy(h100, {.block_threads = 1024, .registers = 128});
  CHECK(too_many_registers.blocks_per_sm == 0);
  CHECK_THAT(too_many_registers.invalid, Catch::Contains("registers"));
  const Occupancy too_much_smem = compute_occupancy(h100, {.block_threads = 128, .registers = 16, .dynamic_smem = 240 * 1024});
  CHECK(too_much_smem.blocks_per_sm == 0);
  CHECK_THAT(too_much_smem.invalid, Catch::Contains("shared memory"));
}

TEST_CASE("the carveout selects the shared-memory size per SM from the architecture's steps", "[occupancy][carveout]") {
  const DeviceInfo h100 = require_arch_profile("sm_90");
  std::vector<int> sizes;
  for (int percent : carveout_steps(h100)) sizes.push_back(carveout_bytes(h100, percent) / 1024);
  CHECK(sizes == std::vector<int>{0, 8, 16, 32, 64, 100, 132, 164, 196, 228});
  CHECK(carveout_bytes(h100, -1) == 228 * 1024);
  CHECK(carveout_bytes(h100, 50) == 132 * 1024);  // 114 KiB rounds up to the next step

  // A small carveout limits blocks that use shared memory...
  const Occupancy small = compute_occupancy(h100, {.block_threads = 128, .registers = 32, .static_smem = 12 * 1024, .carveout = 25});
  const Occupancy large = compute_occupancy(h100, {.block_threads = 128, .registers = 32, .static_smem = 12 * 1024, .carveout = 100});
  CHECK(small.blocks_per_sm < large.blocks_per_sm);
  CHECK(small.limiting_factor() == "shared memory");
  // ...but never below one block: the driver then takes the next step that fits.
  CHECK(compute_occupancy(h100, {.block_threads = 128, .registers = 32, .static_smem = 40 * 1024, .carveout = 0}).blocks_per_sm == 1);

  const DeviceInfo a100 = require_arch_profile("sm_80");
  CHECK(carveout_bytes(a100, 100) == 164 * 1024);
  const DeviceInfo rtx = require_arch_profile("sm_86");
  CHECK(carveout_bytes(rtx, 100) == 100 * 1024);
}

namespace {

struct Vector {
  int ptxas_registers, driver_registers, static_smem, barriers, block, dynamic_smem, carveout, max_dynamic_smem, driver_blocks;
};

std::vector<Vector> read_vectors(const std::string& path, std::string& device_line) {
  std::ifstream in(path);
  std::vector<Vector> vectors;
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("# device:")) device_line = line;
    if (line.empty() || line[0] == '#' || line.starts_with("ptxas")) continue;
    Vector v{};
    char comma = 0;
    std::istringstream row(line);
    row >> v.ptxas_registers >> comma >> v.driver_registers >> comma >> v.static_smem >> comma >> v.barriers >> comma >> v.block >>
        comma >> v.dynamic_smem >> comma >> v.carveout >> comma >> v.max_dynamic_smem >> comma >> v.driver_blocks;
    vectors.push_back(v);
  }
  return vectors;
}

}  // namespace

TEST_CASE("occupancy agrees 100% with the H100 driver on the recorded vectors", "[occupancy][recorded]") {
  std::string device_line;
  const auto vectors = read_vectors(BLOCKTUNE_TEST_DATA_DIR "/occupancy/h100.csv", device_line);
  REQUIRE(vectors.size() >= 2000);
  const DeviceInfo h100 = require_arch_profile("sm_90");
  // The recorded device's per-SM facts are those of the sm_90 profile.
  CHECK(device_line == fmt::format("# device: shared_per_sm={} shared_per_block={} shared_per_block_optin={} reserved_shared_per_block={} "
                                   "registers_per_sm={} registers_per_block={} max_threads_per_block={} max_threads_per_sm={} "
                                   "max_blocks_per_sm={}",
                                   h100.shared_per_sm, h100.shared_per_block, h100.shared_per_block_optin, h100.reserved_shared_per_block,
                                   h100.registers_per_sm, h100.registers_per_block, h100.max_threads_per_block,
                                   h100.max_threads_per_sm, h100.max_blocks_per_sm));
  std::size_t disagreements = 0;
  for (const Vector& v : vectors) {
    const Occupancy cpu = compute_occupancy(h100, {.block_threads = v.block, .registers = v.ptxas_registers, .static_smem = v.static_smem,
                                                   .dynamic_smem = v.dynamic_smem, .carveout = v.carveout, .barriers = v.barriers,
                                                   .max_dynamic_smem = v.max_dynamic_smem});
    if (cpu.blocks_per_sm != std::max(v.driver_blocks, 0) || v.ptxas_registers != v.driver_registers) {
      if (++disagreements <= 10)
        UNSCOPED_INFO(fmt::format("regs {} (driver {}), static {}, block {}, dynamic {}, carveout {}: driver {} blocks, cpu {}",
                                  v.ptxas_registers, v.driver_registers, v.static_smem, v.block, v.dynamic_smem, v.carveout,
                                  v.driver_blocks, cpu.blocks_per_sm));
    }
  }
  CHECK(disagreements == 0);
}
