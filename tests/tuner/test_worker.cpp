#include <blocktune/kernels.hpp>
#include <blocktune/tuner.hpp>
#include <blocktune/worker.hpp>

#include <catch2/catch.hpp>

using namespace blocktune;

TEST_CASE("the measurement worker starts, and says why it cannot measure without a GPU", "[worker][nogpu]") {
  if (Driver::available()) {
    SUCCEED("a GPU is present: the GPU tests run the worker for real");
    return;
  }
  try {
    MeasurementWorker worker(faults(), 0, ProblemSize::parse("4096"), {}, std::nullopt, BLOCKTUNE_WORKER_PROGRAM);
    FAIL("a worker started without a GPU");
  } catch (const GpuUnavailable& error) {
    CHECK_THAT(error.what(), Catch::Contains("libcuda.so.1") || Catch::Contains("driver"));
  }
}

TEST_CASE("a missing worker program is a clear error", "[worker]") {
  CHECK_THROWS_WITH(MeasurementWorker(faults(), 0, ProblemSize::parse("4096"), {}, std::nullopt, "/nonexistent/blocktune-worker"),
                    Catch::Contains("/nonexistent/blocktune-worker") && Catch::Contains("failed to start"));
}

TEST_CASE("a kernel built in code has no origin and cannot go to a worker", "[worker]") {
  KernelDescription k = faults();
  k.origin.clear();
  CHECK_THROWS_WITH(MeasurementWorker(k, 0, ProblemSize::parse("4096"), {}, std::nullopt, BLOCKTUNE_WORKER_PROGRAM),
                    Catch::Contains("no origin"));
}

TEST_CASE("the worker program refuses to run without its job", "[worker]") {
  CHECK(std::system(BLOCKTUNE_WORKER_PROGRAM " > /dev/null 2>&1") != 0);
}

TEST_CASE("the fault test kernel plans each failure it is meant to", "[worker][faults]") {
  const KernelDescription k = faults();
  const VariantCompiler compiler(std::nullopt);
  const Plan plan = make_plan(k, require_arch_profile("sm_90"), ProblemSize::parse("4096"), compiler);
  for (const PlanEntry& e : plan.entries) {
    const std::string mode = to_string(e.config.at("mode"));
    INFO(mode);
    if (mode == "NO_COMPILE") {
      CHECK(e.static_outcome() == Outcome::compile_error);
      CHECK_THAT(e.variant.log, Catch::Contains("deliberately fails to compile"));
    } else if (mode == "BIG_SMEM") {
      CHECK(e.static_outcome() == Outcome::pruned_by_occupancy);
    } else {
      CHECK(e.launchable());
    }
  }
  CHECK(load_kernel("builtin:faults").origin == "builtin:faults");
  CHECK(load_kernel("stencil3d_r2").origin == "builtin:stencil3d_r2");
}
