// The built-in stencil on the CPU: the k-step host reference, the constraints
// and launch geometry of the STREAM and COMP codings and of several rows per
// thread, every radius, coding and fused step count compiling for sm_90, and
// STREAM's counts for the execution-time model.
#include <blocktune/kernels.hpp>
#include <blocktune/stencil_work.hpp>
#include <blocktune/tuner.hpp>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <map>

using namespace blocktune;

namespace {

const ProblemSize kTiny = ProblemSize::parse("11x10x9");
const ProblemSize k512 = ProblemSize::parse("512x512x512");
// Fused configurations advance up to 4 steps per launch: a problem that runs them.
const ProblemSize k512_100_steps{{512, 512, 512}, 100};

// in (values that are never zero), out (a sentinel), coefficients, for a tiny f64 stencil.
std::vector<HostBuffer> tiny_buffers(const KernelDescription& k, int radius) {
  const std::size_t cells = 11 * 10 * 9;
  std::vector<HostBuffer> buffers = {{"in", ElementType::f64, std::vector<std::byte>(cells * 8)},
                                     {"out", ElementType::f64, std::vector<std::byte>(cells * 8)},
                                     {"coefficients", ElementType::f64, std::vector<std::byte>((radius + 1) * 8)}};
  for (std::size_t i = 0; i < cells; ++i) {
    buffers[0].as<double>()[i] = 1.0 + static_cast<double>(i * 37 % 101) / 50;
    buffers[1].as<double>()[i] = -99;
  }
  const auto& coefficients = std::get<BufferArgument>(k.arguments[2]).values;
  std::ranges::copy(coefficients, buffers[2].as<double>().begin());
  return buffers;
}

Config stream(int block_y, int py, int vx, int fused_steps) {
  return Config::parse(fmt::format("block_x=32,block_y={},block_z=1,strategy=STREAM,zloop=REG,z_chunk=16,vx={},py={},fused_steps={},carveout=-1",
                                   block_y, vx, py, fused_steps));
}

Config plane(int block_x, int block_y, int py, int vx, int fused_steps) {
  return Config::parse(fmt::format("block_x={},block_y={},block_z=1,strategy=PLANE,zloop=REG,z_chunk=16,vx={},py={},fused_steps={},carveout=-1",
                                   block_x, block_y, vx, py, fused_steps));
}

}  // namespace

TEST_CASE("k fused steps of the host reference are k single steps, and the boundary is never written", "[kernels]") {
  for (const int radius : {1, 2}) {
    const KernelDescription k = stencil3d(radius, ElementType::f64);
    for (const int steps : {2, 3}) {
      INFO("radius " << radius << ", " << steps << " steps");
      std::vector<HostBuffer> fused = tiny_buffers(k, radius);
      k.reference(kTiny, stream(16, 2, 1, steps), fused);

      // The same steps one by one; each step's output starts as its input, so
      // the points outside the interior keep the input's values at every step.
      std::vector<HostBuffer> single = tiny_buffers(k, radius);
      for (int s = 0; s < steps; ++s) {
        single[1] = single[0];
        single[1].name = "out";
        k.reference(kTiny, Config::parse(k.default_config), single);
        single[0].bytes = single[1].bytes;
      }
      const auto expected = single[1].as<const double>();
      const auto out = fused[1].as<const double>();
      int interior_points = 0;
      for (int z = 0; z < 9; ++z)
        for (int y = 0; y < 10; ++y)
          for (int x = 0; x < 11; ++x) {
            const int at = (z * 10 + y) * 11 + x;
            const bool interior = x >= radius && x < 11 - radius && y >= radius && y < 10 - radius && z >= radius && z < 9 - radius;
            if (interior) {
              ++interior_points;
              CHECK(out[at] == Approx(expected[at]).epsilon(1e-12));
            } else {
              CHECK(out[at] == -99);  // the output's own initial value
            }
          }
      CHECK(interior_points == (11 - 2 * radius) * (10 - 2 * radius) * (9 - 2 * radius));
    }
  }
}

TEST_CASE("the reference is computed once per fused step count, and the metrics count every fused step", "[kernels]") {
  const KernelDescription k = stencil3d(1);
  CHECK(k.reference_key == "fused_steps");
  const DeviceInfo h100 = require_arch_profile("sm_90");
  const Lookup env = environment(k, h100, k512);
  const Config one = stream(16, 2, 2, 1), three = stream(16, 2, 2, 3);
  const auto evaluate = [&](const std::string& expression, const Config& c) { return Expression::parse(expression).evaluate_int(c.lookup(env)); };
  CHECK(evaluate(k.bytes_moved, three) == 3 * evaluate(k.bytes_moved, one));
  CHECK(evaluate(k.flops, three) == 3 * evaluate(k.flops, one));
  CHECK(evaluate(k.bytes_moved, one) == 8LL * 512 * 512 * 512);
}

TEST_CASE("the constraints keep fused steps to the STREAM coding and its tile to what fits", "[kernels]") {
  const auto violated = [](const KernelDescription& k, const Config& config, const char* arch = "sm_90") -> std::string {
    const auto v = k.space.check(config, environment(k, require_arch_profile(arch), k512_100_steps));
    return v ? v->constraint : std::string();
  };
  const auto parse = [](const char* text) { return Config::parse(text); };
  const KernelDescription r1 = stencil3d(1);
  // A launch advances at most the steps the problem runs: one, by default.
  CHECK_THAT(r1.space.check(stream(8, 4, 1, 2), environment(r1, require_arch_profile("sm_90"), k512))->constraint,
             Catch::Equals("(fused_steps) <= time_steps"));
  CHECK_FALSE(r1.space.check(stream(8, 4, 1, 2), environment(r1, require_arch_profile("sm_90"), ProblemSize{{512, 512, 512}, 2})));
  // Only STREAM fuses steps, only with its register ring and a warp per tile row.
  CHECK_THAT(violated(r1, parse("block_x=32,block_y=4,block_z=1,strategy=BASE,zloop=INTZ,z_chunk=8,vx=4,py=1,fused_steps=2,carveout=-1")),
             Catch::Contains("fused_steps == 1"));
  CHECK_THAT(violated(r1, parse("block_x=32,block_y=16,block_z=1,strategy=STREAM,zloop=INTZ,z_chunk=16,vx=4,py=1,fused_steps=2,carveout=-1")),
             Catch::Contains(R"(zloop == "REG")"));
  CHECK_THAT(violated(r1, parse("block_x=64,block_y=8,block_z=1,strategy=STREAM,zloop=REG,z_chunk=16,vx=4,py=1,fused_steps=2,carveout=-1")),
             Catch::Contains("block_x == 32"));
  CHECK_THAT(violated(r1, parse("block_x=32,block_y=16,block_z=1,strategy=STREAM,zloop=REG,z_chunk=16,vx=4,py=1,fused_steps=2,carveout=0")),
             Catch::Contains("carveout != 0"));
  // The register ring: 4 steps x 3 planes x 4 rows x 2 points is 96 values, the
  // most it may hold; 3 steps of 4 rows x 4 points are 144.
  CHECK(violated(r1, stream(8, 4, 2, 4)).empty());
  CHECK_THAT(violated(r1, stream(16, 4, 4, 3)), Catch::Contains("py * vx <= 96"));
  // A halo that leaves less than half the tile written: radius 4 cannot fuse steps in a 32-row tile.
  const KernelDescription r4 = stencil3d(4);
  CHECK(violated(r4, stream(16, 2, 2, 1)).empty());
  CHECK_THAT(violated(r4, stream(16, 2, 1, 2)), Catch::Contains("2 * ((block_x * vx"));
  CHECK_THAT(violated(r1, stream(2, 1, 1, 1)), Catch::Contains("2 * ((block_x * vx"));
  // Four FP64 planes of 32 x 64 per level, double-buffered: 128 KiB, over sm_86's 99 KiB per block.
  const KernelDescription r1_f64 = stencil3d(1, ElementType::f64);
  CHECK(violated(r1_f64, stream(16, 2, 2, 4)).empty());
  CHECK_THAT(violated(r1_f64, stream(16, 2, 2, 4), "sm_86"), Catch::Contains("max_shared_per_block"));
}

TEST_CASE("the constraints give PLANE blocks 16 to 64 threads wide, and 32 high, that no other coding takes", "[kernels]") {
  const auto violated = [](const KernelDescription& k, const Config& config, const char* arch = "sm_90") -> std::string {
    const auto v = k.space.check(config, environment(k, require_arch_profile(arch), k512_100_steps));
    return v ? v->constraint : std::string();
  };
  const KernelDescription r1 = stencil3d(1), r2 = stencil3d(2);
  CHECK(violated(r1, plane(16, 16, 2, 4, 3)).empty());
  CHECK(violated(r2, plane(16, 32, 2, 4, 2)).empty());
  CHECK(violated(r1, plane(64, 8, 2, 2, 2)).empty());
  CHECK_THAT(violated(r1, plane(128, 4, 1, 2, 2)), Catch::Contains(R"(strategy == "PLANE" ? block_x <= 64)"));
  CHECK_THAT(violated(r1, stream(32, 1, 2, 2)), Catch::Contains("block_y <= 16"));
  CHECK_THAT(violated(r1, Config::parse("block_x=16,block_y=8,block_z=1,strategy=CSL,zloop=REG,z_chunk=8,vx=4,py=1,fused_steps=1,carveout=-1")),
             Catch::Contains("block_x >= 32"));
  CHECK_THAT(violated(r1, Config::parse("block_x=16,block_y=32,block_z=1,strategy=STREAM,zloop=REG,z_chunk=16,vx=4,py=2,fused_steps=2,carveout=-1")),
             Catch::Contains("block_x >= 32"));
  // The register ring as STREAM's: 2 steps x 5 planes x 2 rows x 4 points is 80
  // values at radius 2; 2 x 5 x 4 x 4 would be 160.
  CHECK_THAT(violated(r2, plane(16, 16, 4, 4, 2)), Catch::Contains("py * vx <= 96"));
  // Half of the tile written: radius 2, 2 steps leave 8 of 16 rows, not more.
  CHECK_THAT(violated(r2, plane(16, 16, 1, 4, 2)), Catch::Contains(R"(strategy != "PLANE" || ((block_x)"));
  // No shared memory carved out, no plane to stream through.
  const Config no_shared = Config::parse("block_x=16,block_y=16,block_z=1,strategy=PLANE,zloop=REG,z_chunk=16,vx=4,py=2,fused_steps=2,carveout=0");
  CHECK_THAT(violated(r1, no_shared), Catch::Contains("carveout != 0"));
}

TEST_CASE("a STREAM configuration launches one block per written tile, with its planes in dynamic shared memory", "[kernels]") {
  const DeviceInfo h100 = require_arch_profile("sm_90");
  // Radius 1, 2 steps, 32 x 4 threads of 4 points = 128 x 16 tile: the halo is 2
  // each side, the tile starts at a multiple of 4 (4 columns before the first
  // written one, which is x = 1), so 120 columns and 12 rows are written.
  const ResolvedConfig r = resolve(stencil3d(1), stream(16, 1, 4, 2), h100, k512);
  CHECK(r.shape.block == std::array<unsigned, 3>{32, 16, 1});
  CHECK(r.shape.grid == std::array<unsigned, 3>{5, 43, 32});  // 510 / 120, 510 / 12, 510 / 16, rounded up
  // Two planes of the 8 KiB tile per fused step, and the input's ring: 4 planes
  // in flight (32 KiB) and the one being read.
  CHECK(r.shape.dynamic_smem == (2 * 2 + 4 + 1) * 16 * 128 * 4);
  const auto defines = r.request.defines;
  CHECK(std::ranges::find(defines, std::pair<std::string, std::string>{"FUSED_STEPS", "2"}) != defines.end());
  CHECK(std::ranges::find(defines, std::pair<std::string, std::string>{"STRATEGY", "STREAM"}) != defines.end());
  // The other codings launch as before and use no dynamic shared memory.
  const ResolvedConfig base = resolve(stencil3d(1), Config::parse(stencil3d(1).default_config), h100, k512);
  CHECK(base.shape.grid == std::array<unsigned, 3>{16, 32, 510});
  CHECK(base.shape.dynamic_smem == 0);
}

TEST_CASE("a PLANE configuration writes whole vectors: its written columns start a vector into the tile", "[kernels]") {
  const DeviceInfo h100 = require_arch_profile("sm_90");
  // Radius 2, 2 steps, 16 x 32 threads of 4 points and 2 rows = 64 x 64 tile:
  // the halo is 4 each side, the written columns start 4 in and end 4 before
  // the halo: 56 columns, 56 rows. The tiles step by them from the faces
  // (tile b starts at x = 56 b): the first writes from the face (x = 2), the
  // ninth ends at it (x = 448 to 511) and writes up to it (x = 509).
  const ResolvedConfig r = resolve(stencil3d(2), plane(16, 32, 2, 4, 2), h100, k512_100_steps);
  CHECK(r.shape.block == std::array<unsigned, 3>{16, 32, 1});
  CHECK(r.shape.grid == std::array<unsigned, 3>{9, 9, 32});  // 1 + 448 / 56 twice, 508 / 16 rounded up
  // Two planes per fused step of the tile with 2 rows above and below and 4
  // columns either side, and the input's ring of 16 KiB tiles: 2 planes in
  // flight and the one being read.
  CHECK(r.shape.dynamic_smem == 2 * 2 * 68 * 72 * 4 + (2 + 1) * 64 * 64 * 4);
  // Radius 1, 3 steps, 4-point vectors: the first written column is the vector at 4.
  const ResolvedConfig r1 = resolve(stencil3d(1), plane(16, 16, 2, 4, 3), h100, k512_100_steps);
  CHECK(r1.shape.grid == std::array<unsigned, 3>{9, 20, 32});  // 1 + 448 / (64 - 3 - 4 rounded down to 56), 1 + 480 / 26 rounded up
}

TEST_CASE("every radius and fused step count of STREAM and PLANE compiles for sm_90 and fits the H100", "[kernels][compile]") {
  const DeviceInfo h100 = require_arch_profile("sm_90");
  const VariantCompiler compiler(std::nullopt);
  for (const std::string strategy : {"STREAM", "PLANE"}) {
    for (const ElementType type : {ElementType::f32, ElementType::f64}) {
      for (int radius = 1; radius <= 5; ++radius) {
        const KernelDescription k = stencil3d(radius, type);
        // One configuration per fused step count the space holds: the most
        // points per thread, then the most threads, the hardest on registers and shared memory.
        std::map<std::int64_t, Config> chosen;
        for (const Config& c : k.space.enumerate(environment(k, h100, k512_100_steps))) {
          if (to_string(c.at("strategy")) != strategy) continue;
          const std::int64_t steps = c.get_int("fused_steps");
          const auto work = [](const Config& x) { return x.get_int("vx") * x.get_int("py") * 4096 + x.get_int("block_x") * x.get_int("block_y"); };
          if (!chosen.contains(steps) || work(c) > work(chosen.at(steps))) chosen.insert_or_assign(steps, c);
        }
        INFO(strategy << " " << k.name);
        REQUIRE(chosen.contains(1));
        if (radius <= 2 && type == ElementType::f32)
          for (const std::int64_t steps : {2, 3}) CHECK(chosen.contains(steps));
        if (radius == 1 && type == ElementType::f32) CHECK(chosen.contains(4));
        for (const auto& [steps, config] : chosen) {
          INFO(config.to_string());
          const PlanEntry entry = plan_one(k, config, h100, k512_100_steps, compiler);
          INFO(entry.variant.log);
          CHECK(entry.variant.ok);
          CHECK(entry.launchable());  // registers (spilling at 1024 threads) and shared memory fit an SM
          CHECK(entry.occupancy.blocks_per_sm >= 1);
        }
      }
    }
  }
}

namespace {

Config single_step(const std::string& strategy, const std::string& zloop, int block_y, int vx, int py) {
  const bool loop = zloop != "NONE";
  return Config::parse(fmt::format("block_x=32,block_y={},block_z={},strategy={},zloop={},z_chunk={},vx={},py={},fused_steps=1,carveout=-1",
                                   block_y, loop ? 1 : 2, strategy, zloop, loop ? 8 : 1, vx, py));
}

}  // namespace

TEST_CASE("COMP's tiles take the device's shared memory, and REG's queue keeps to its register budget", "[kernels]") {
  const auto violated = [](const KernelDescription& k, const Config& config, const char* arch = "sm_90") -> std::string {
    const auto v = k.space.check(config, environment(k, require_arch_profile(arch), k512));
    return v ? v->constraint : std::string();
  };
  // Radius 5, FP64, 256 x 4 threads of 4 points and 4 rows, two tiles: 2 x 26 x 1040 x 8 bytes = 422.5 KiB.
  const KernelDescription r5_f64 = stencil3d(5, ElementType::f64);
  const Config huge = Config::parse("block_x=256,block_y=4,block_z=1,strategy=COMP,zloop=INTZ,z_chunk=8,vx=4,py=4,fused_steps=1,carveout=-1");
  CHECK_THAT(violated(r5_f64, huge), Catch::Contains("max_shared_per_block"));
  // Radius 4, FP32, 128 x 4 threads of 4 points and 4 rows: 2 x 24 x 520 x 4 bytes = 97.5 KiB,
  // beyond the 48 KiB of a static array but within the H100's opt-in 227 KiB (not sm_75's 64 KiB).
  const KernelDescription r4 = stencil3d(4);
  const Config large = Config::parse("block_x=128,block_y=4,block_z=1,strategy=COMP,zloop=INTZ,z_chunk=8,vx=4,py=4,fused_steps=1,carveout=-1");
  CHECK(violated(r4, large).empty());
  CHECK_THAT(violated(r4, large, "sm_75"), Catch::Contains("max_shared_per_block"));
  // REG's queue: radius 4, 9 planes x 2 rows x 4 points = 72 values, over 64; 1 row fits.
  CHECK_THAT(violated(r4, single_step("BASE", "REG", 8, 4, 2)), Catch::Contains(R"(9 * py * vx <= (strategy == "RING" ? 96 : 64))"));
  CHECK(violated(r4, single_step("COMP", "REG", 8, 4, 1)).empty());
  // Several rows per thread in every coding with a z loop and vector rows, 16 rows per block at most.
  CHECK(violated(r4, single_step("CSL", "INTZ", 4, 4, 4)).empty());
  CHECK_THAT(violated(r4, single_step("CSL", "INTZ", 8, 4, 4)), Catch::Contains("block_y * py <= 16"));
  CHECK_THAT(violated(r4, single_step("COMP", "NONE", 4, 4, 2)), Catch::Contains("block_y * py <= 16"));
  CHECK_THAT(violated(r4, single_step("BASE", "INTZ", 4, 1, 2)), Catch::Contains("block_y * py <= 16"));
}

TEST_CASE("a COMP configuration launches one block per tile of block_y x py rows, its tiles in dynamic shared memory", "[kernels]") {
  const DeviceInfo h100 = require_arch_profile("sm_90");
  // Radius 4, FP32, 32 x 8 threads of 4 points and 2 rows, a z loop: tiles of
  // 16 + 8 rows and 128 + 2 x 4 columns, two of them.
  const ResolvedConfig r = resolve(stencil3d(4), single_step("COMP", "INTZ", 8, 4, 2), h100, k512);
  CHECK(r.shape.block == std::array<unsigned, 3>{32, 8, 1});
  CHECK(r.shape.grid == std::array<unsigned, 3>{4, 32, 63});  // 512 / 128, 504 / 16 and 504 / 8, rounded up
  CHECK(r.shape.dynamic_smem == 2 * 24 * 136 * 4);
  // FP64, radius 1, one point per thread, no z loop, two z slices: 16-byte copies
  // of 2 values, so 2 columns either side; one tile per slice.
  const ResolvedConfig f64 = resolve(stencil3d(1, ElementType::f64), single_step("COMP", "NONE", 4, 1, 1), h100, k512);
  CHECK(f64.shape.grid == std::array<unsigned, 3>{16, 128, 255});
  CHECK(f64.shape.dynamic_smem == 2 * 1 * 6 * 36 * 8);
  // Several rows per thread shrink BASE's grid in y too.
  const ResolvedConfig base = resolve(stencil3d(4), single_step("BASE", "INTZ", 8, 4, 4), h100, k512);
  CHECK(base.shape.grid == std::array<unsigned, 3>{4, 16, 63});
  CHECK(base.shape.dynamic_smem == 0);
}

TEST_CASE("RING walks z with its queue, which may take 96 registers, and its ring of four slots takes shared memory", "[kernels]") {
  const DeviceInfo h100 = require_arch_profile("sm_90");
  const auto violated = [&](const KernelDescription& k, const Config& config) -> std::string {
    const auto v = k.space.check(config, environment(k, h100, k512));
    return v ? v->constraint : std::string();
  };
  const KernelDescription r4 = stencil3d(4);
  CHECK_THAT(violated(r4, single_step("RING", "INTZ", 4, 4, 1)), Catch::Contains(R"(strategy != "RING" || zloop == "REG")"));
  CHECK_THAT(violated(r4, single_step("RING", "NONE", 4, 4, 1)), Catch::Contains(R"(strategy != "RING" || zloop == "REG")"));
  // Radius 4: 9 planes x 2 rows x 4 points = 72 values, over REG's 64 but within RING's 96; 4 rows are not.
  CHECK(violated(r4, single_step("RING", "REG", 4, 4, 2)).empty());
  CHECK_THAT(violated(r4, single_step("BASE", "REG", 4, 4, 2)), Catch::Contains("py * vx <= (strategy"));
  CHECK_THAT(violated(r4, single_step("RING", "REG", 4, 4, 4)), Catch::Contains("py * vx <= (strategy"));
  // In FP64 the 96 registers hold 48 values.
  CHECK_THAT(violated(stencil3d(4, ElementType::f64), single_step("RING", "REG", 4, 4, 2)), Catch::Contains("py * vx <= (strategy"));
  CHECK(violated(stencil3d(4, ElementType::f64), single_step("RING", "REG", 4, 4, 1)).empty());

  // 32 x 4 threads of 4 points and 2 rows: tiles of 8 + 8 rows and 128 + 2 x 4
  // columns, and 8 x 128 points of the new plane, in each of 4 slots.
  const ResolvedConfig r = resolve(r4, single_step("RING", "REG", 4, 4, 2), h100, k512);
  CHECK(r.shape.block == std::array<unsigned, 3>{32, 4, 1});
  CHECK(r.shape.grid == std::array<unsigned, 3>{4, 63, 63});  // 512 / 128, 504 / 8, 504 / 8
  CHECK(r.shape.dynamic_smem == 4 * (16 * 136 + 8 * 128) * 4);
  const auto defines = r.request.defines;
  CHECK(std::ranges::find(defines, std::pair<std::string, std::string>{"STRATEGY", "RING"}) != defines.end());
  // FP64, radius 1, 2 points: 16-byte copies of 2 values, so 2 columns either side.
  const ResolvedConfig f64 = resolve(stencil3d(1, ElementType::f64), single_step("RING", "REG", 4, 2, 1), h100, k512);
  CHECK(f64.shape.dynamic_smem == 4 * (6 * 68 + 4 * 64) * 8);
}

TEST_CASE("RING's counts for the model: COMP's DRAM traffic, its loads through shared memory", "[kernels][model]") {
  const std::array<std::int64_t, 3> problem{512, 512, 512};
  const KernelWork ring = stencil3d_work(4, 4, problem, single_step("RING", "REG", 4, 4, 2));
  const KernelWork comp = stencil3d_work(4, 4, problem, single_step("COMP", "REG", 4, 4, 2));
  const KernelWork base = stencil3d_work(4, 4, problem, single_step("BASE", "REG", 4, 4, 2));
  CHECK(ring.dram_bytes == comp.dram_bytes);
  CHECK(ring.l1_wavefronts < base.l1_wavefronts);  // BASE reads its neighbours through L1
  CHECK(ring.shared_wavefronts > 0);
  CHECK(ring.steps == 8);
  CHECK(ring.rounds < comp.rounds);  // its copies were requested three planes earlier
  CHECK(ring.chains == 4 * 2);       // a sum per point: vx x py
  // The queue's 2R planes before each chunk: shorter chunks move more from L2.
  const Config short_chunks = Config::parse("block_x=32,block_y=4,block_z=1,strategy=RING,zloop=REG,z_chunk=8,vx=4,py=2,fused_steps=1,carveout=-1");
  const Config long_chunks = Config::parse("block_x=32,block_y=4,block_z=1,strategy=RING,zloop=REG,z_chunk=64,vx=4,py=2,fused_steps=1,carveout=-1");
  CHECK(stencil3d_work(4, 4, problem, short_chunks).l2_bytes > stencil3d_work(4, 4, problem, long_chunks).l2_bytes);
}

TEST_CASE("INTZ's z reuse needs the planes around a plane in L1, and a thread's rows wait for each other's stores", "[kernels][model]") {
  const std::array<std::int64_t, 3> problem{512, 512, 512};
  const auto config = [](const char* strategy, const char* zloop, int py) {
    return Config::parse(fmt::format("block_x=32,block_y=4,block_z=1,strategy={},zloop={},z_chunk=8,vx=4,py={},fused_steps=1,carveout=-1",
                                     strategy, zloop, py));
  };
  // 16 rows of 128 points (576 bytes of sectors with the x halo, 544 without:
  // unaligned rows touch one more), 2 y halo rows; INTZ keeps 2 x 2 planes of its 16 rows.
  const KernelWork intz = stencil3d_work(2, 4, problem, config("BASE", "INTZ", 4));
  CHECK(intz.reuse_footprint == Approx(576.0 * 16 + 544.0 * 4 + 4 * 544.0 * 16));
  CHECK(stencil3d_work(2, 4, problem, config("BASE", "REG", 4)).reuse_footprint == 0);  // one step's own loads
  CHECK(intz.rounds == 4);  // a memory round per row: its z neighbours
  CHECK(stencil3d_work(2, 4, problem, config("CSL", "INTZ", 4)).rounds == 4);  // CSL's rows as well (sm_90 SASS)
  const KernelWork reg = stencil3d_work(2, 4, problem, config("CSL", "REG", 4));
  CHECK((reg.rounds == 1 && reg.near_rounds == 3));  // the new plane one step ahead; later rows' x neighbours hit L1
}

TEST_CASE("a z walk ends at the grid's interior: a chunk longer than it counts the planes it walks", "[kernels][model]") {
  // 40 deep at radius 1: 38 planes to compute, so z_chunk 64 and 128 walk the same 38 in one block along z.
  const std::array<std::int64_t, 3> thin{1536, 768, 40};
  const auto config = [](const char* strategy, int bx, int z_chunk) {
    return Config::parse(fmt::format("block_x={},block_y=4,block_z=1,strategy={},zloop=REG,z_chunk={},vx=2,py=2,fused_steps=1,carveout=-1",
                                     bx, strategy, z_chunk));
  };
  for (const auto& [strategy, bx] : {std::pair{"BASE", 32}, {"RING", 32}, {"PLANE", 32}, {"STREAM", 32}}) {
    INFO(strategy);
    const KernelWork longer = stencil3d_work(1, 4, thin, config(strategy, bx, 128));
    const KernelWork shorter = stencil3d_work(1, 4, thin, config(strategy, bx, 64));
    CHECK(longer.l2_bytes == Approx(shorter.l2_bytes));
    CHECK(longer.l1_wavefronts == Approx(shorter.l1_wavefronts));
    CHECK(longer.warp_instructions == Approx(shorter.warp_instructions));
    CHECK(longer.steps == shorter.steps);
  }
  // Two chunks of 32 cover the 38 planes: a walk of 32 and one of 6, 19 on average, so the work is that of 38 planes
  // (plus each block's halo planes), not of 64, and the latency that of 19 steps a block.
  const KernelWork one = stencil3d_work(1, 4, thin, config("BASE", 32, 64));
  const KernelWork two = stencil3d_work(1, 4, thin, config("BASE", 32, 32));
  CHECK(one.steps == 38);
  CHECK(two.steps == 19);
  CHECK(two.warp_instructions == Approx(one.warp_instructions));  // the same thread steps, in twice the blocks
  CHECK(two.l2_bytes > one.l2_bytes);                              // each block reads its 2R halo planes
  CHECK(two.l2_bytes < 1.1 * one.l2_bytes);
}

TEST_CASE("every single-step coding with several rows per thread compiles for sm_90 for every radius, without spills", "[kernels][compile]") {
  const DeviceInfo h100 = require_arch_profile("sm_90");
  const VariantCompiler compiler(std::nullopt);
  for (const ElementType type : {ElementType::f32, ElementType::f64}) {
    for (int radius = 1; radius <= 5; ++radius) {
      const KernelDescription k = stencil3d(radius, type);
      const Lookup env = environment(k, h100, k512);
      for (const char* strategy : {"BASE", "COMP", "RING"})
        for (const char* zloop : {"NONE", "INTZ", "REG"}) {
          if (std::string(strategy) == "RING" && std::string(zloop) != "REG") continue;  // RING has only a queue
          // The most points per thread the space allows at 32 x 4 threads (x 2 without a z loop): the hardest on registers.
          std::optional<Config> chosen;
          for (const int vx : {4, 2, 1})
            for (const int py : {4, 2, 1}) {
              const Config c = single_step(strategy, zloop, 4, vx, py);
              if (!k.space.check(c, env) && (!chosen || vx * py > chosen->get_int("vx") * chosen->get_int("py"))) chosen = c;
            }
          INFO(k.name << " " << strategy << "+" << zloop);
          REQUIRE(chosen);
          CHECK(chosen->get_int("vx") * chosen->get_int("py") >= (std::string(zloop) == "INTZ" ? 16 : 4));
          INFO(chosen->to_string());
          const PlanEntry entry = plan_one(k, *chosen, h100, k512, compiler);
          INFO(entry.variant.log);
          CHECK(entry.variant.ok);
          CHECK(entry.launchable());
          CHECK(entry.variant.usage.spill_stores == 0);
          CHECK(entry.variant.usage.spill_loads == 0);
        }
    }
  }
}

TEST_CASE("STREAM's counts for the model: its steps multiply the on-chip work, not the DRAM traffic", "[kernels][model]") {
  const std::array<std::int64_t, 3> problem{512, 512, 512};
  const KernelWork one = stencil3d_work(1, 4, problem, stream(16, 2, 2, 1));
  const KernelWork three = stencil3d_work(1, 4, problem, stream(16, 2, 2, 3));
  const KernelWork single_step = stencil3d_work(1, 4, problem, Config::parse("block_x=32,block_y=16,block_z=1,strategy=CSL,zloop=REG,z_chunk=16,vx=2,py=2,fused_steps=1,carveout=-1"));
  CHECK(one.dram_bytes == single_step.dram_bytes);
  CHECK(three.dram_bytes == one.dram_bytes);
  // Three steps: a wider halo (more tiles, more planes each) and three times the work per plane.
  CHECK(three.l2_bytes > one.l2_bytes);
  CHECK(three.warp_instructions > 2.5 * one.warp_instructions);
  CHECK(three.shared_wavefronts > 3 * one.shared_wavefronts);
  CHECK(three.steps == one.steps + 4);  // fused_steps * R planes more before and after the chunk
  // The model no longer takes a fused launch for the ideal roofline of its k steps' bytes.
  const KernelDescription k = stencil3d(1);
  REQUIRE(k.work);
  CHECK(k.work(k512, stream(16, 2, 2, 3)).has_value());
}

TEST_CASE("PLANE's counts for the model: its steps multiply the on-chip work, and its ring moves no planes", "[kernels][model]") {
  const std::array<std::int64_t, 3> problem{512, 512, 512};
  const KernelWork one = stencil3d_work(2, 4, problem, plane(16, 32, 2, 4, 1));
  const KernelWork two = stencil3d_work(2, 4, problem, plane(16, 32, 2, 4, 2));
  CHECK(two.dram_bytes == one.dram_bytes);
  CHECK(two.l2_bytes > one.l2_bytes);  // a wider halo: more tiles, more planes each
  CHECK(two.warp_instructions > 1.8 * one.warp_instructions);
  CHECK(two.steps == one.steps + 4);
  // The same 64 x 64 tile as STREAM's 32 x 16 threads of 2 points and 4 rows:
  // no shuffles, no ring shift, so fewer instructions for the same arithmetic.
  const KernelWork stream_two = stencil3d_work(2, 4, problem, stream(16, 4, 2, 2));
  CHECK(two.warp_instructions < stream_two.warp_instructions);
  const KernelDescription k = stencil3d(2);
  REQUIRE(k.work);
  CHECK(k.work(k512, plane(16, 32, 2, 4, 2)).has_value());
}
