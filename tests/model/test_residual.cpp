// The learned correction of the model (detail/residual.hpp): its trees are
// walked as written, a malformed file is refused with the reason, and the
// stencil's correction shipped with blocktune names the recordings it was
// fitted on, none of the held-out set that judged it
// (bench/results/model/oof-first-tune/refit-91/).
#include <blocktune/detail/residual.hpp>
#include <blocktune/kernels.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

using namespace blocktune;

namespace {

std::string features_json() {
  std::string names;
  for (const std::string_view name : kResidualFeatureNames) names += (names.empty() ? "\"" : ", \"") + std::string(name) + "\"";
  return "[" + names + "]";
}

// Two trees: warps per SM (feature 8) <= 16 gives -0.1, else 0.2; then the
// spill bytes (feature 10) <= 0 gives 0, else 0.5. Baseline 0.05.
std::string two_trees(const std::string& second_tree = "[[10, 0.0, 1, 2, 0], [-1, 0, 0, 0, 0.0], [-1, 0, 0, 0, 0.5]]") {
  return R"({"fitted_on": ["a-h200"], "features": )" + features_json() + R"(, "baseline": 0.05, "trees": [
      [[8, 16.0, 1, 2, 0], [-1, 0, 0, 0, -0.1], [-1, 0, 0, 0, 0.2]], )" + second_tree + "]}";
}

}  // namespace

TEST_CASE("a learned correction walks each tree to its leaf and multiplies the prediction by exp of their sum") {
  const ResidualModel model = parse_residual_model(two_trees(), "test");
  REQUIRE(model.tree_starts.size() == 2);
  ResidualFeatures x{};
  x[8] = 16;  // at the threshold: goes left
  CHECK(log_residual(model, x) == Approx(0.05 - 0.1));
  x[8] = 32;
  x[10] = 8;
  CHECK(log_residual(model, x) == Approx(0.05 + 0.2 + 0.5));

  DeviceParameters device;
  device.sm_count = 100;
  device.sm_clock_hz = 2e9;
  device.dram_bandwidth = 3.2e12;
  const Prediction analytic{.seconds = 2e-3, .dram = 1e-3, .l2 = 5e-4, .latency = 2e-4};
  const LaunchResources launch{.blocks = 400, .threads_per_block = 256, .blocks_per_sm = 4, .spill_bytes = 0};  // 32 warps per SM
  const KernelWork work{.steps = 8};
  const ResidualFeatures f = residual_features(device, work, analytic, launch);
  CHECK(f[7] == Approx(8));               // log2 of 256 threads
  CHECK(f[8] == Approx(32));              // 4 blocks of 8 warps
  CHECK(f[9] == Approx(0).margin(1e-12)); // one wave: 400 blocks on 100 SMs x 4
  CHECK(f[1] < f[0]);                     // L2's share of the throughput-bound time is below DRAM's
  CHECK(f[12] == Approx(4));              // 16 DRAM bytes per SM clock
  CHECK(f[13] == Approx(3));              // a walk of 8 steps
  CHECK(f[14] == Approx(0).margin(1e-12)); // one whole wave leaves nothing idle
  const LaunchResources five_quarters{.blocks = 500, .threads_per_block = 256, .blocks_per_sm = 4, .spill_bytes = 0};
  CHECK(residual_features(device, work, analytic, five_quarters)[14] == Approx(std::log(2 / 1.25)));  // 1.25 waves run as 2
  const Prediction p = corrected(model, device, work, analytic, launch);
  CHECK(p.correction == Approx(std::exp(0.05 + 0.2)));
  CHECK(p.seconds == Approx(2e-3 * std::exp(0.25)));
  CHECK(p.dram == analytic.dram);  // the terms stay the analytic model's

  // A device without a DRAM bandwidth has no balance to tell it by: refused, not a -inf feature.
  device.dram_bandwidth = 0;
  CHECK_THROWS_WITH(residual_features(device, work, analytic, launch), Catch::Contains("DRAM bandwidth"));
}

TEST_CASE("a malformed correction file is refused, naming the file and what is wrong") {
  CHECK_THROWS_WITH(parse_residual_model("{", "bad.json"), Catch::Contains("bad.json") && Catch::Contains("not JSON"));
  CHECK_THROWS_WITH(parse_residual_model(R"({"features": ["dram_share"], "baseline": 0, "fitted_on": [], "trees": []})", "old.json"),
                    Catch::Contains("old.json") && Catch::Contains("features are not this build's"));
  CHECK_THROWS_WITH(parse_residual_model(two_trees("[[10, 0.0, 1, 7, 0], [-1, 0, 0, 0, 0.0]]"), "cut.json"),
                    Catch::Contains("cut.json: tree 1, node 0") && Catch::Contains("out of range"));
  CHECK_THROWS_WITH(parse_residual_model(two_trees("[[15, 0.0, 1, 2, 0], [-1, 0, 0, 0, 0.0], [-1, 0, 0, 0, 0.0]]"), "wide.json"),
                    Catch::Contains("out of range"));
  CHECK_THROWS_WITH(parse_residual_model(two_trees("[]"), "empty.json"), Catch::Contains("tree 1 has no nodes"));
}

TEST_CASE("the stencil's correction ships with every built-in stencil, fitted on both devices' recordings but not its judges") {
  for (const std::string name : {"stencil3d_r1", "stencil3d_r5"}) {
    const KernelDescription kernel = builtin_kernel(name);
    REQUIRE(kernel.residual != nullptr);
    CHECK(kernel.residual->tree_starts.size() >= 100);
    const auto& fitted_on = kernel.residual->fitted_on;
    const auto any = [&](std::string_view part) { return std::ranges::any_of(fitted_on, [&](const std::string& s) { return s.find(part) != std::string::npos; }); };
    CHECK(any("-h200"));
    CHECK(any("-h100"));
    CHECK(any("held-out-37"));        // every set read before it was judged
    CHECK(any("held-out-38"));
    CHECK(any("held-out-39"));
    CHECK_FALSE(any("held-out-40"));  // the set that judged it (bench/results/spaces/h200-held-out-40)
  }
}
