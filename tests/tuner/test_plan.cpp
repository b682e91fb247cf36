#include <blocktune/kernels.hpp>
#include <blocktune/prediction.hpp>
#include <blocktune/tuner.hpp>

#include <catch2/catch.hpp>

using namespace blocktune;

namespace {

// The stencil with a space small enough to compile in a test.
KernelDescription small_stencil(int radius) {
  KernelDescription k = stencil3d(radius);
  SearchSpace space;
  space.add_parameter({"block_x", {32, 256, 1024}});
  space.add_parameter({"block_y", {1, 4}});
  space.add_parameter({"block_z", {1, 2}});
  space.add_parameter({"strategy", {std::string("BASE"), std::string("CSL")}});
  space.add_parameter({"zloop", {std::string("NONE")}});
  space.add_parameter({"z_chunk", {1}});
  space.add_parameter({"vx", {1, 4}});
  space.add_parameter({"py", {1}});
  space.add_parameter({"fused_steps", {1}});
  space.add_parameter({"carveout", {-1, 100}});
  for (const Expression& c : k.space.constraints()) space.add_constraint(c.text());
  k.space = space;
  k.default_config = "block_x=32,block_y=4,block_z=1,strategy=BASE,zloop=NONE,z_chunk=1,vx=1,py=1,fused_steps=1,carveout=-1";
  return k;
}

}  // namespace

TEST_CASE("a configuration resolves to defines, an entry and a launch geometry", "[plan]") {
  const KernelDescription k = stencil3d(2);
  const DeviceInfo h100 = require_arch_profile("sm_90");
  const Config config = Config::parse("block_x=64,block_y=4,block_z=1,strategy=CSL,zloop=REG,z_chunk=16,vx=2,py=1,fused_steps=1,carveout=100");
  const ResolvedConfig r = resolve(k, config, h100, ProblemSize::parse("512x256x100"));
  CHECK(r.request.kernel == "stencil3d<2>");
  CHECK(r.request.arch == "sm_90");
  const std::vector<std::pair<std::string, std::string>> defines = {{"BLOCK_X", "64"}, {"BLOCK_Y", "4"}, {"BLOCK_Z", "1"},
                                                                    {"STRATEGY", "CSL"}, {"ZLOOP", "REG"}, {"Z_CHUNK", "16"},
                                                                    {"VX", "2"},        {"PY", "1"},        {"FUSED_STEPS", "1"}};
  CHECK(r.request.defines == defines);
  CHECK(r.shape.block == std::array<unsigned, 3>{64, 4, 1});
  // x: 512 points in 64 x 2 per block; y: 252 interior rows in 4s; z: 96 interior planes in chunks of 16.
  CHECK(r.shape.grid == std::array<unsigned, 3>{4, 63, 6});
  CHECK(r.shape.carveout == 100);
}

TEST_CASE("the plan compiles each distinct variant once and explains every rejection", "[plan]") {
  const KernelDescription k = small_stencil(1);
  const DeviceInfo h100 = require_arch_profile("sm_90");
  const VariantCompiler compiler(std::nullopt);
  const Plan plan = make_plan(k, h100, ProblemSize::parse("128x128x128"), compiler);
  CHECK(plan.raw_size == 96);
  REQUIRE(plan.entries.size() == 96);
  // Blocks 1024x4x1, 1024x4x2, 1024x1x2 and 256x4x2 exceed 1024 threads; 32x1x1
  // is under 64: 5 of the 12 shapes, times 8 values of the other parameters.
  // (nx = 128 is a multiple of vx = 4, so vector loads are allowed.)
  CHECK(plan.count(Outcome::rejected_by_constraint) == 5 * 8);
  CHECK(plan.count(Outcome::compile_error) == 0);
  CHECK(plan.count(Outcome::ok) == 7 * 8);
  // The carveout is a launch setting: configurations differing only in it share a variant.
  CHECK(plan.compiled == plan.count(Outcome::ok) / 2);
  for (const PlanEntry& e : plan.entries) {
    if (e.static_outcome() == Outcome::rejected_by_constraint) {
      CHECK_THAT(e.reason(), Catch::StartsWith("violates block_x * block_y * block_z"));
    } else {
      CHECK(e.variant.usage.registers > 0);
      CHECK(e.occupancy.blocks_per_sm > 0);
      CHECK_FALSE(e.occupancy.limiting_factor().empty());
    }
  }
  const auto ranked = rank_by_model(k, plan, model_parameters(h100));
  REQUIRE(ranked.size() == plan.count(Outcome::ok));
  for (std::size_t i = 1; i < ranked.size(); ++i) CHECK(ranked[i - 1].prediction.seconds <= ranked[i].prediction.seconds);
}

TEST_CASE("a large space lists only its valid configurations but counts the rejected ones", "[plan]") {
  KernelDescription k = small_stencil(1);
  std::vector<Value> values;
  for (std::int64_t v = 0; v < 300; ++v) values.emplace_back(v);
  k.space.add_parameter({"unused_a", values});
  k.space.add_parameter({"unused_b", values});
  k.space.add_constraint("unused_a == 0 && unused_b == 0 && block_x == 32 && vx == 1 && carveout == -1");
  k.default_config += ",unused_a=0,unused_b=0";
  k.defines = {"block_x", "block_y", "block_z", "strategy", "zloop", "z_chunk", "vx", "py", "fused_steps"};
  const VariantCompiler compiler(std::nullopt);
  const Plan plan = make_plan(k, require_arch_profile("sm_90"), ProblemSize::parse("64x64x64"), compiler);
  REQUIRE(plan.raw_size == 96 * 300 * 300);
  CHECK(plan.count(Outcome::rejected_by_constraint) == 0);  // too many to list
  CHECK(plan.entries.size() == 6);  // block 32x1x1 has too few threads
  CHECK(plan.rejected() == 96 * 300 * 300 - 6);
}

TEST_CASE("a plan with a broken source records compile errors and goes on", "[plan]") {
  KernelDescription k = small_stencil(1);
  k.source += "\n#if STRATEGY == CSL\n#error CSL deliberately broken\n#endif\n";  // half the variants
  const VariantCompiler compiler(std::nullopt);
  const Plan plan = make_plan(k, require_arch_profile("sm_80"), ProblemSize::parse("64x64x64"), compiler);
  CHECK(plan.count(Outcome::compile_error) == 28);
  CHECK(plan.count(Outcome::ok) == 28);
  for (const PlanEntry& e : plan.entries)
    if (e.static_outcome() == Outcome::compile_error) CHECK_THAT(e.variant.log, Catch::Contains("CSL deliberately broken"));
}

TEST_CASE("shared memory over the limit is pruned by occupancy with the reason", "[plan]") {
  KernelDescription k = small_stencil(1);
  k.dynamic_smem = "block_x * 200";  // 1024 threads x 200 B = 200 KiB: over the 99 KiB of sm_86
  const VariantCompiler compiler(std::nullopt);
  const Plan plan = make_plan(k, require_arch_profile("sm_86"), ProblemSize::parse("64x64x64"), compiler);
  std::size_t pruned = 0;
  for (const PlanEntry& e : plan.entries) {
    if (e.static_outcome() != Outcome::pruned_by_occupancy) continue;
    ++pruned;
    CHECK(e.config.get_int("block_x") >= 512);
    CHECK_THAT(e.reason(), Catch::Contains("shared memory"));
  }
  CHECK(pruned > 0);
}

TEST_CASE("built-in kernels are listed and unknown names are refused with the list", "[kernels]") {
  const auto names = builtin_kernel_names();
  CHECK(names.size() == 11);  // the stencil, radius 1 to 5, FP32 and FP64, and the fault test kernel
  CHECK(names.front() == kDefaultKernel);
  for (const std::string& name : names) CHECK(builtin_kernel(name).name == name);
  CHECK_THROWS_WITH(builtin_kernel("gemm"), Catch::Contains("unknown kernel 'gemm'") && Catch::Contains("stencil3d_r1"));
  CHECK_THROWS_WITH(stencil3d(6), Catch::Contains("radius 6"));
}

TEST_CASE("the stencil's host reference computes the star and leaves the boundary untouched", "[kernels]") {
  const KernelDescription k = stencil3d(1, ElementType::f64);
  const ProblemSize problem = ProblemSize::parse("5x4x3");
  std::vector<HostBuffer> buffers = {{"in", ElementType::f64, std::vector<std::byte>(60 * 8)},
                                     {"out", ElementType::f64, std::vector<std::byte>(60 * 8)},
                                     {"coefficients", ElementType::f64, std::vector<std::byte>(2 * 8)}};
  auto in = buffers[0].as<double>();
  auto out = buffers[1].as<double>();
  for (std::size_t i = 0; i < 60; ++i) {
    in[i] = static_cast<double>(i * i % 7);
    out[i] = -99;
  }
  buffers[2].as<double>()[0] = 2;
  buffers[2].as<double>()[1] = 0.5;
  k.reference(problem, Config{}, buffers);
  // Interior points: i in 1..3, j in 1..2, k = 1.
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 5; ++i)
      for (int z = 0; z < 3; ++z) {
        const int at = z * 20 + j * 5 + i;
        const bool interior = i >= 1 && i <= 3 && j >= 1 && j <= 2 && z == 1;
        if (!interior) {
          CHECK(out[at] == -99);
          continue;
        }
        const double expected = 2 * in[at] + 0.5 * (in[at - 1] + in[at + 1] + in[at - 5] + in[at + 5] + in[at - 20] + in[at + 20]);
        CHECK(out[at] == Approx(expected));
      }
}
