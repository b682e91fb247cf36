// Time steps without a GPU: tuning for N steps against a simulated GPU on
// which fusing steps pays, the winners stored per step count, the run-time
// query's plans for tuned and untuned counts, and the launcher's selection.
#include <blocktune/builder.hpp>
#include <blocktune/launcher.hpp>
#include <blocktune/runtime.hpp>
#include <blocktune/tuner.hpp>

#include <catch2/catch.hpp>
#include <sqlite3.h>

#include <algorithm>
#include <sstream>

#include "temp_dir.hpp"

using namespace blocktune;

namespace {

// `fuse` steps per launch; the buffers it would swap are not needed to tune.
KernelDescription fused_kernel() {
  return KernelBuilder("fused")
      .source("extern \"C\" __global__ void step(float* out, int n) { if (threadIdx.x < n) out[threadIdx.x] = FUSE; }", "step.cu")
      .entry("step")
      .problem({"n"})
      .parameter("block", {64, 128, 256})
      .parameter("fuse", {1, 2, 3})
      .defines({"fuse"})
      .block({"block"})
      .grid_divisors({"block"})
      .buffer(BufferArgument{.name = "out", .type = ElementType::f32, .count = "n", .output = true})
      .scalar("n", ElementType::i32, "n")
      .default_config("block=64,fuse=1")
      .time_steps("fuse", "", "")
      .build();
}

// Larger blocks are faster; a launch of k steps takes (1 + k) / 2 of a
// single step's time: 0.75 per step for two, 0.67 for three.
Simulation fusing_gpu() {
  return {require_arch_profile("sm_90"), [](const Config& config) {
            const double single = 1.0 + 64.0 / double(config.get_int("block"));
            return SimulatedMeasurement{Outcome::ok, single * (1.0 + double(config.get_int("fuse"))) / 2, 0.0, {}};
          }};
}

double single_ms(int block) { return 1.0 + 64.0 / block; }

}  // namespace

TEST_CASE("a plan for N steps: whole launches, then the fastest launches that make up the rest", "[time_steps]") {
  const std::vector<StepLaunch> launches = {{"a", {}, 1, 1.0}, {"b", {}, 2, 1.5}, {"c", {}, 3, 2.0}, {"d", {}, 1, 0.9}};
  const auto fastest = fastest_by_depth(launches);
  REQUIRE(fastest.size() == 3);
  CHECK(fastest[0].config == "d");
  const auto two = compose_steps(2, fastest);
  REQUIRE(two);
  REQUIRE(two->size() == 1);  // one 2-step launch (1.5) beats two single steps (1.8)
  CHECK(two->front().config == "b");
  CHECK(compose_steps(0, fastest)->empty());
  CHECK_FALSE(compose_steps(1, std::vector<StepLaunch>{{"b", {}, 2, 1.5}}));

  const auto plan = plan_steps(launches[2], 8, fastest);  // 2 launches of 3 steps, then 2 steps
  REQUIRE(plan);
  CHECK(plan->launches == 2);
  REQUIRE(plan->remainder.size() == 1);
  CHECK(plan->remainder.front().config == "b");
  CHECK(plan->total_ms == Approx(2 * 2.0 + 1.5));
  CHECK(plan->time_steps() == 8);
  CHECK_FALSE(plan_steps(launches[2], 2, fastest));  // 3 steps per launch do not fit in 2

  const auto best = best_step_plan(launches, 6);  // c twice: 4.0; b three times: 4.5; d six times: 5.4
  REQUIRE(best);
  CHECK(best->best.main.config == "c");
  CHECK(best->runner_up_ms == Approx(4.5));
  CHECK(best_step_plan(launches, 1)->best.main.config == "d");
}

TEST_CASE("tuning for N time steps lets fused launches win, stored per step count and answered per step count", "[time_steps][tune]") {
  test::TempDir folder;
  const VariantCompiler compiler(folder.path() / "cache");
  const KernelDescription kernel = fused_kernel();
  TuneOptions options;
  options.strategy = "exhaustive";
  options.compile_threads = 2;
  options.simulation = fusing_gpu();
  {
    Store store = Store::open(folder / "tuning.db");
    const TuneResult one = tune(kernel, 0, ProblemSize{{4096}, 1}, store, compiler, options);
    CHECK(one.valid == 3);  // a launch of more steps than the problem runs is left out
    REQUIRE(one.winner);
    CHECK(one.winner->config == "block=256,fuse=1");

    const TuneResult seven = tune(kernel, 0, ProblemSize{{4096}, 7}, store, compiler, options);
    CHECK(seven.valid == 9);
    CHECK(seven.resumed == 3);  // measurements are per launch: shared by every step count
    REQUIRE(seven.winner);
    // 2 launches of 3 steps and 1 single step: 5 single-step times; 3 x 2 + 1 would be 5.5.
    CHECK(seven.winner->config == "block=256,fuse=3");
    CHECK(seven.winner->time_steps == 7);
    CHECK(seven.winner->plan.launches == 2);
    REQUIRE(seven.winner->plan.remainder.size() == 1);
    CHECK(seven.winner->plan.remainder.front().config == "block=256,fuse=1");
    CHECK(seven.winner->plan.total_ms == Approx(5 * single_ms(256)));
    CHECK(seven.winner->margin_default == Approx(7 * single_ms(64) / (5 * single_ms(256))));
  }

  const TuningDatabase db = TuningDatabase::open(folder / "tuning.db");
  const DeviceKey device = device_key(options.simulation->device);
  const BestConfig& exact = db.best("fused", device, ProblemSize{{4096}, 7});
  CHECK(exact.match == MatchKind::exact);
  CHECK(exact.config == "block=256,fuse=3");
  CHECK(exact.launches == 2);
  REQUIRE(exact.remainder.size() == 1);
  CHECK(exact.total_ms == Approx(5 * single_ms(256)));
  CHECK(db.best("fused", device, ProblemSize{{4096}, 1}).config == "block=256,fuse=1");

  // 8 steps were not tuned: the fastest plan of the launches measured (2 x 3 + 2),
  // credited to the largest count tuned, 7.
  const BestConfig& eight = db.best("fused", device, ProblemSize{{4096}, 8});
  CHECK(eight.match == MatchKind::nearest_problem);
  CHECK(eight.tuned_problem.time_steps == 7);
  CHECK(eight.config == "block=256,fuse=3");
  CHECK(eight.launches == 2);
  REQUIRE(eight.remainder.size() == 1);
  CHECK(eight.remainder.front().config == "block=256,fuse=2");
  CHECK(eight.total_ms == Approx(2 * 2 * single_ms(256) + 1.5 * single_ms(256)));
  CHECK_THAT(format_best(eight), Catch::Contains("no winner tuned for 8 time steps: the fastest plan of the launches measured when tuning for 7"));
  // 2 steps: neither winner is the best plan (the 7-step winner's 3-step launch does
  // not fit, the 1-step winner twice takes 2 steps' time); the 2-step launch measured
  // when tuning for 7 runs them in 1.5, credited to 7, the smallest count covering 2.
  const BestConfig& two = db.best("fused", device, ProblemSize{{4096}, 2});
  CHECK(two.config == "block=256,fuse=2");
  CHECK(two.parameters == std::vector<std::pair<std::string, std::string>>{{"block", "256"}, {"fuse", "2"}});
  CHECK(two.launches == 1);
  CHECK(two.remainder.empty());
  CHECK(two.tuned_problem.time_steps == 7);
  CHECK(two.total_ms == Approx(1.5 * single_ms(256)));

  // The launcher resolves the plan: launches of the main configuration, then the remainder.
  const Selection selection = select_configuration(kernel, db, options.simulation->device, ProblemSize{{4096}, 7});
  CHECK(selection.tuned());
  CHECK(selection.config.to_string() == "block=256,fuse=3");
  CHECK(selection.launches == 2);
  REQUIRE(selection.remainder.size() == 1);
  CHECK(selection.remainder.front().resolved.steps_per_launch == 1);
  // Not tuned for this architecture: the kernel's default, one step per launch, N launches.
  const Selection fallback = select_configuration(kernel, TuningDatabase::open(folder / "tuning.db"), require_arch_profile("sm_80"),
                                                  ProblemSize{{4096}, 5});
  CHECK(fallback.match == MatchKind::kernel_default);
  CHECK(fallback.config.to_string() == "block=64,fuse=1");
  CHECK(fallback.launches == 5);
  CHECK(fallback.remainder.empty());

  // An export keeps the step counts tuned: the import recomputes their winners.
  std::stringstream json;
  export_json(folder / "tuning.db", json);
  Store copy = Store::open(folder / "copy.db");
  CHECK(copy.import_json(json, "export").winners == 2);
  CHECK(TuningDatabase::open(folder / "copy.db").best("fused", device, ProblemSize{{4096}, 7}).match == MatchKind::exact);

  // A launch timed warm (an older run's, say) is not composed with flushed ones, however fast it measured.
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open((folder / "tuning.db").c_str(), &raw) == SQLITE_OK);
  REQUIRE(sqlite3_exec(raw, "UPDATE trials SET l2_flushed = 0, median_ms = median_ms / 10 WHERE config = 'block=256,fuse=2'", nullptr, nullptr,
                       nullptr) == SQLITE_OK);
  sqlite3_close(raw);
  const BestConfig& flushed_only = TuningDatabase::open(folder / "tuning.db").best("fused", device, ProblemSize{{4096}, 8});
  CHECK(flushed_only.config == "block=256,fuse=3");
  REQUIRE_FALSE(flushed_only.remainder.empty());
  CHECK(std::ranges::none_of(flushed_only.remainder, [](const StepLaunch& l) { return l.config == "block=256,fuse=2"; }));
}
