// examples/runtime_query/stencil7.json describes the kernel stencil_app
// launches, under the name the application queries, with the application's
// launch geometry.
#include "spec_test_util.hpp"

#include <blocktune/tuner.hpp>

#include <catch2/catch.hpp>

using namespace blocktune;
using namespace blocktune::test;

TEST_CASE("stencil_app's spec tunes the kernel the application launches, with its geometry", "[examples]") {
  const auto app = std::filesystem::path(BLOCKTUNE_SOURCE_DIR) / "examples" / "runtime_query";
  const KernelDescription k = load_spec(app / "stencil7.json");
  CHECK(k.name == "stencil3d");  // the name stencil_app.cu asks the database for
  CHECK(k.source == read_text(app / "stencil7.cuh"));
  CHECK(read_text(app / "stencil_app.cu").find("#include \"stencil7.cuh\"") != std::string::npos);

  const DeviceInfo h100 = require_arch_profile("sm_90");
  const ProblemSize problem = ProblemSize::parse("200x200x200");
  CHECK(k.space.enumerate(environment(k, h100, problem)).size() == 400);

  // stencil_app's grid: one thread per interior point in x and y, and per z_per_thread planes in z.
  const ResolvedConfig resolved =
      resolve(k, Config::parse("block_x=64,block_y=4,block_z=2,z_per_thread=8,carveout=100"), h100, problem);
  CHECK(resolved.shape.block == std::array<unsigned, 3>{64, 4, 2});
  CHECK(resolved.shape.grid == std::array<unsigned, 3>{(198 + 63) / 64, (198 + 3) / 4, ((198 + 7) / 8 + 1) / 2});

  const VariantCompiler compiler(std::nullopt);
  const PlanEntry entry = plan_one(k, Config::parse(k.default_config), h100, problem, compiler);
  INFO(entry.variant.log);
  CHECK(entry.launchable());
}
